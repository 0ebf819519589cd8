# Shared by the figure scripts. Called by analysis/make_plots.sh with
#   bin='build'  dir='data/results/<experiment>'  fig='data/results/figures'
# Every script draws any subset of its sweep (a narrowed sweep, or runs missing): the lists it
# iterates over come from the merged summary (column values, runs_merged), never from the
# default sweep (make test-plots: analysis/test_plot_subsets.sh).
# h5(file, datasets): a gnuplot data source that extracts HDF5 datasets as columns.
h5(f, d) = sprintf("< %s/pbd-h5extract '%s' %s", bin, f, d)
attr(f, a) = system(sprintf("%s/pbd-h5extract '%s' --attr %s 2>/dev/null", bin, f, a))
file_exists(f) = int(system(sprintf("test -f '%s' && echo 1 || echo 0", f)))
summary = dir.'/summary.h5'
# values(table, c): the distinct values of column c (1-based) of a summary table, as words,
# in increasing order ('' when the table has no rows)
values(t, c) = system(sprintf("%s/pbd-h5extract '%s' %s 2>/dev/null | awk 'NR > 1 { print $%d }' | sort -g | uniq | tr '\\n' ' '", bin, summary, t, c))
# num(word): a word as a number. gnuplot evaluates a `plot for [w in LIST]` clause's title
# once even when LIST is empty, with w = '': num('') is 0 where real('') stops the script.
num(w) = (w eq '' ? 0 : real(w))
# has(list, word): 1 when the word is in the list
has(l, w) = strstrt(' '.l.' ', ' '.w.' ') > 0
# nodata(what): the command that draws an empty frame saying what is missing, for a figure
# none of whose runs is in this subset of the sweep:  eval nodata('no tet runs'). Its label
# starts 'no data:', which make check-report finds in a report's figures (an empty panel).
nodata(what) = sprintf("set label 99 'no data: %s' at graph 0.5, graph 0.5 center noenhanced; set key off; plot [1:10][1:10] NaN notitle; unset label 99; set key on", what)
# diverged(t, xc, sc): the commands that mark, at the top of the frame, every row of summary
# table t whose column sc (the step its run left its declared bound at) is > 0: a marker at
# x = column xc and "diverged at step N" (labels 100 and up; a diverged run is a finding, its
# values NaN, no point on the curve):  eval diverged('/tables/stretch', 2, 6) before plot,
# unset label after
diverged(t, xc, sc) = system(sprintf('%s/pbd-h5extract ''%s'' %s 2>/dev/null | awk ''NR > 1 && $%d > 0 { printf "set label %%d \"diverged at step %%d\" at first %%s, graph 0.95 point pt 3 ps 2.5 lc rgb \"red\" rotate by 90 right offset 0.4,-1 font \",9\" tc rgb \"red\"; ", 100 + NR, $%d, $%d }''', bin, summary, t, sc, sc, xc))
set encoding utf8
set grid
set key outside right top box opaque
set style data linespoints
set pointsize 0.8
set datafile missing 'NaN'
set format x '%g'
set format y '%g'
