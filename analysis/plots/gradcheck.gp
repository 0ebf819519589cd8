# gradcheck: largest relative gradient error per constraint type, against the 1e-6 bar.
load 'analysis/plots/common.gp'
types = attr(summary, 'types')

do for [fmt in 'png svg'] {
    call 'analysis/plots/output.gp' fmt 'gradcheck_error'
    set title 'Analytic gradient vs central finite differences: largest relative error per type'
    set ylabel 'max relative error over the samples'
    set logscale y
    set yrange [1e-12:1e-4]
    set xtics rotate by -30 noenhanced
    set style fill solid 0.6
    set boxwidth 0.6
    plot h5(summary, '/tables/types') using 0:2:xtic(word(types, int($0) + 1)) with boxes title 'ours', \
         1e-6 with lines dt 2 lw 2 lc rgb 'red' title 'PASS bar (1e-6)'
    unset logscale
}
