#!/bin/sh
# make check-report: RESULTS/report.html as a reader sees it, in headless Chromium at 1400 px
# (scripts/check_report.py: every image loads, no table wider than the page, no name broken
# letter by letter, no raw nan/inf, every figure draws a series and has no empty panel), one
# screenshot per experiment into RESULTS/screenshots/. Then the same check on copies of the
# report with one defect planted in each, every one of which must fail: a check that passes
# them would pass anything.
# Installs Debian's chromium, chromium-driver and python3-selenium without recommends when
# missing and running as root; otherwise prints the exact command and fails.
# Usage: check-report.sh RESULTS   Exit status: 0 clean, 1 a defect (named) or a plant missed.
set -u
RESULTS=${1:-data/results}
PACKAGES="chromium chromium-driver python3-selenium"
PY=/usr/bin/python3 # Debian's, with python3-selenium
. scripts/need-packages.sh
if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ] ||
        ! $PY -c 'import selenium' 2>/dev/null; then
    need_packages check-report $PACKAGES
fi
report=$RESULTS/report.html
if [ ! -f "$report" ]; then
    echo "check-report: $report: expected the report of make experiments (or make report RESULTS=$RESULTS), found no such file" >&2
    exit 1
fi
start=$(date +%s)

# The plants: a copy of the report with one defect each, beside a link to the real figures.
plant=$RESULTS/check-report-plants
rm -rf "$plant"
mkdir -p "$plant"
ln -s "$(cd "$RESULTS" && pwd)/figures" "$plant/figures"
# plant NAME HTML: the report with HTML inserted at the top of its body
plant() {
    awk -v add="$2" '{ print } /<body>/ && !done { print add; done = 1 }' "$report" > "$plant/$1.html"
}
plant nan '<table><tr><td>time to 1e-3</td><td>nan s</td></tr></table>'
plant image '<img src="figures/no_such_figure.png" alt="missing">'
plant wide '<table><tr><td style="white-space:nowrap">'"$(printf 'wide%.0s ' $(seq 300))"'</td></tr></table>'
plant letters '<table style="width:4em"><tr><td style="overflow-wrap:anywhere">strain_triangle_normalized</td></tr></table>'
# a figure whose data are empty: gnuplot draws the frame and the key, no series
gnuplot -e "set terminal svg size 400,300; set output '$plant/empty.svg'; plot [0:1][0:1] NaN title 'a run'" &&
    gnuplot -e "set terminal pngcairo size 400,300; set output '$plant/empty.png'; plot [0:1][0:1] NaN title 'a run'" ||
    { echo "check-report: gnuplot could not draw the planted empty figure" >&2; exit 1; }
plant series '<figure><img src="empty.png" alt="empty"><figcaption><a href="empty.svg">SVG</a></figcaption></figure>'

$PY scripts/check_report.py --screenshots "$RESULTS/screenshots" "$report" \
    "$plant/nan.html" "$plant/image.html" "$plant/wide.html" "$plant/letters.html" \
    "$plant/series.html" > "$plant/check.log" 2>&1
status=0
# the real report: every line about it
grep -F "check-report: $report:" "$plant/check.log"
grep -qF "check-report: $report: images, widths, words, nan/inf, series: ok" "$plant/check.log" || status=1
# each plant: caught, by the check that guards it
for p in nan:nan/inf image:images wide:width letters:words series:series; do
    name=${p%%:*} what=${p#*:}
    if grep -qF "check-report: $plant/$name.html: $what:" "$plant/check.log"; then
        echo "check-report: planted defect '$name' caught ($what)"
    else
        echo "check-report: planted defect '$name' NOT caught: the $what check is broken" >&2
        grep -F "$plant/$name.html" "$plant/check.log" | tail -3 >&2
        status=1
    fi
done
if grep -q 'Traceback\|WebDriverException' "$plant/check.log"; then
    cat "$plant/check.log" >&2
    status=1
fi
n=$(ls "$RESULTS/screenshots" 2>/dev/null | wc -l)
echo "check-report: $(( $(date +%s) - start )) s; $n screenshots in $RESULTS/screenshots/"
exit $status
