#!/bin/sh
# make newton-sweep: "Solvers refuse up front or converge" for the Newton reference.
# Every scene x material (tet_beam --material, the cloth scenes' --stretch) x Young's modulus
# E = 1e3..1e11 Pa where E acts (once at the defaults where it does not) x each way the CLI
# takes Newton (--method=newton; --reference=newton beside --method=xpbd): the run must either
# converge on every step (exit 0) or be refused before step 1 (exit 2, one line with the
# reason). Anything else — a failure at a step (exit 5), a crash — is a FAIL.
# Prints one line per case and a table (scene material: one letter per E, C converged,
# R refused, F failed); exit 1 on any FAIL. Usage: scripts/newton-sweep.sh [BIN_DIR] [STEPS]
bin=${1:-build}
steps=${2:-2}
exps="1e3 1e4 1e5 1e6 1e7 1e8 1e9 1e10 1e11"
tmp=$(mktemp -d /tmp/pbd-newton-sweep-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
table="$tmp/table"
: >"$table"

# one case: LABEL then pbd-run's arguments; prints C, R or F into $tmp/letter. With $reason
# set, only a refusal whose line contains it counts as R (a refusal for another reason is F).
reason=
run_case() {
    label=$1
    shift
    "$bin/pbd-run" "$@" --steps="$steps" --quiet >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 0 ]; then
        echo C >"$tmp/letter"
        echo "converged  $label"
    elif [ $rc -eq 2 ] && ! grep -q "step [1-9]" "$tmp/err" &&
        { [ -z "$reason" ] || grep -qF -- "$reason" "$tmp/err"; }; then
        echo R >"$tmp/letter"
        echo "refused    $label: $(head -c 300 "$tmp/err" | head -1)"
    else
        echo F >"$tmp/letter"
        echo "FAIL       $label (exit $rc): $(head -c 300 "$tmp/err" | head -1)"
        fails=$((fails + 1))
    fi
}

# SCENE MATERIAL_LABEL E_ACTS then the scene's own arguments
sweep() {
    scene=$1 mat=$2 eacts=$3
    shift 3
    for how in newton reference; do
        # (a failed reference must stop the run here: by default it is recorded, exit 0)
        if [ $how = newton ]; then m="--method=newton"
        else m="--method=xpbd --reference=newton --reference-failure=stop"; fi
        row="$scene $mat $how:"
        if [ "$eacts" = 1 ]; then
            for e in $exps; do
                run_case "$scene $mat E=$e $m" "$scene" "$@" $m --youngs-modulus="$e"
                row="$row $(cat "$tmp/letter")"
            done
        else
            run_case "$scene $mat (E cannot act) $m" "$scene" "$@" $m
            row="$row $(cat "$tmp/letter") (no E)"
        fi
        echo "$row" >>"$table"
    done
}

for mat in neo-hookean stvk corotated strain strain-normalized; do
    sweep tet_beam "$mat" 1 --material="$mat"
done
sweep tet_beam distance-volume 0 --compliance=1e-6
for scene in cloth cloth_bend balloon cloth_bag; do
    bend=""
    [ "$scene" != cloth ] && bend="--bend-compliance=1e-3"
    for stretch in fem strain; do
        sweep "$scene" "stretch=$stretch" 1 --stretch="$stretch" $bend
    done
    sweep "$scene" "stretch=distance" 0 --compliance=1e-6 $bend
done
# cloth_bend without bending (--k-bend=0): a horizontal membrane that only its mass holds out
# of its plane; above kappa = k dt^2/m = 1/sqrt(eps) (E >= 1e9 N/m here) refused up front
for stretch in fem strain; do
    sweep cloth_bend "stretch=$stretch,k-bend=0" 1 --stretch="$stretch" --k-bend=0
done
# spring sheets without bending: compliant springs (kappa 1.4e5..1.4e7, under the bound) that
# stalled in the KKT form until the step was solved anew in potential form; and the stiff strain
# membrane in 16 substeps (kappa 3.7e7), whose line search stalled against G's rounding
for scene in cloth_bend cloth_bag; do
    for alpha in 1e-8 1e-7 1e-6; do
        sweep "$scene" "distance,k-bend=0,compliance=$alpha" 0 --k-bend=0 --compliance="$alpha"
    done
    sweep "$scene" "distance,k-bend=0,compliance=1e-6,substeps=16" 0 --k-bend=0 \
        --compliance=1e-6 --substeps=16
done
for stretch in fem strain; do
    sweep cloth_bend "stretch=$stretch,k-bend=0,substeps=16" 1 --stretch="$stretch" --k-bend=0 \
        --substeps=16
done
sweep chain distance 0 --compliance=1e-6
sweep rod rod 1
sweep helix rod 1
for scene in tear dam_break fluid_rest; do
    sweep "$scene" default 0
done
# the contact scenes: the implicit step takes equalities only, so a world with colliders or
# contacts is refused before step 1, and for that reason (an XPBD compliance, so that the
# PBD stiffness is not what is refused)
reason="expected a world without colliders or contacts"
for scene in cloth_sphere cloth_ground_slide cloth_fold rigid_coupling; do
    sweep "$scene" contact 0 --compliance=1e-6
done
reason=

echo
echo "E = $exps (C converged, R refused before step 1, F failed)"
cat "$table"
if [ $fails -gt 0 ]; then
    echo "newton-sweep: $fails case(s) neither converged nor were refused up front"
    exit 1
fi
echo "newton-sweep: every case converged or was refused before step 1"
