# call 'analysis/plots/output.gp' 'png'|'svg' NAME : the terminal and output file for one format.
if (ARG1 eq 'png') {
    set terminal pngcairo size 1000,620 enhanced font 'Sans,11' linewidth 1.5
} else {
    set terminal svg size 1000,620 enhanced font 'Sans,11' linewidth 1.5 dynamic
}
set output sprintf('%s/%s.%s', fig, ARG2, ARG1)
