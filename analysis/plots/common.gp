# Shared by the figure scripts. Called by analysis/make_plots.sh with
#   bin='build'  dir='data/results/<experiment>'  fig='data/results/figures'
# h5(file, datasets): a gnuplot data source that extracts HDF5 datasets as columns.
h5(f, d) = sprintf("< %s/pbd-h5extract '%s' %s", bin, f, d)
attr(f, a) = system(sprintf("%s/pbd-h5extract '%s' --attr %s 2>/dev/null", bin, f, a))
file_exists(f) = int(system(sprintf("test -f '%s' && echo 1 || echo 0", f)))
summary = dir.'/summary.h5'
set grid
set key outside right top box opaque
set style data linespoints
set pointsize 0.8
set datafile missing 'NaN'
set format x '%g'
set format y '%g'
