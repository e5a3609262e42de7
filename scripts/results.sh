#!/usr/bin/env bash
# Regenerates the tables of docs/results.md: runs every command the page
# names and puts each one's output between the page's markers
#
#     <!-- results:NAME begin -->
#     ...
#     <!-- results:NAME end -->
#
# as the command itself (a code block) followed by the table(s) sward wrote,
# so a table and the command under which it stands cannot disagree. The
# prose outside the markers is the page's own. Every table comes from sward's
# own output (a bench's report.md, budget.md, scale.md, `sward soak`'s and
# `sward clipmap-errors`' markdown); the script needs bash, awk and sed only.
#
#   scripts/results.sh                      # build (release), run everything
#   scripts/results.sh budget soak          # only these sections
#   SWARD=path/to/sward scripts/results.sh  # use an existing binary
#   OUT=DIR                                 # reports (default target/results)
#   BEFORE=DIR scripts/results.sh compare   # `sward compare DIR` against this
#                                           # run's default bench
#   SWARD_REAL_DATA=DIR                     # the real-data section (skipped
#                                           # without it, its table kept)
#
# Not run in CI: it takes about as long as the budget check ten times over
# (docs/results.md says how long its last run took, and on what load).
set -euo pipefail
cd "$(dirname "$0")/.."

page=docs/results.md
out="${OUT:-target/results}"
if [ -z "${SWARD:-}" ]; then
    cargo build --release -p sward
    SWARD=target/release/sward
fi
mkdir -p "$out"

all=(budget default occlusion clipmap clipmap-accuracy flight scale soak real-tile compare
     placement-memory placement-density placement-flight)
if [ "$#" -gt 0 ]; then
    wanted=("$@")
else
    wanted=("${all[@]}")
fi
for w in "${wanted[@]}"; do
    case " ${all[*]} " in
        *" $w "*) ;;
        *) echo "results.sh: no section \`$w\` (sections: ${all[*]})" >&2; exit 2 ;;
    esac
    grep -qxF "<!-- results:$w begin -->" "$page" || {
        echo "results.sh: $page has no <!-- results:$w begin --> marker" >&2
        exit 2
    }
done

# The lines of markdown FILE under the heading `## TITLE...` (up to the next
# heading of that level or higher), the heading itself left out.
section() {
    local file=$1 title=$2
    awk -v title="## $title" '
        index($0, title) == 1 { on = 1; next }
        on && /^##? / { exit }
        on { print }' "$file"
}

# Replaces what stands between NAME's markers on the page with FILE.
replace() {
    local name=$1 file=$2
    awk -v begin="<!-- results:$name begin -->" -v end="<!-- results:$name end -->" -v frag="$file" '
        $0 == begin { print; while ((getline line < frag) > 0) print line; close(frag); skip = 1; next }
        $0 == end { skip = 0 }
        !skip { print }' "$page" >"$page.tmp"
    mv "$page.tmp" "$page"
}

# Runs `sward ARGS...` (shown on the page as `sward ARGS...`, with $out as
# OUT), timing it; the fragment starts with the command.
run() {
    local frag=$1
    shift
    local shown="sward $*"
    shown="${shown//$out/OUT}"
    if [ -n "${SWARD_REAL_DATA:-}" ]; then
        shown="${shown//$SWARD_REAL_DATA/\$SWARD_REAL_DATA}"
    fi
    echo "results.sh: sward $*" >&2
    local start
    start=$(date +%s)
    local rc=0
    "$SWARD" "$@" >"$frag.stdout" || rc=$?
    local took=$(($(date +%s) - start))
    {
        echo '```sh'
        echo "$shown"
        echo '```'
        echo
        echo "(Run $(date -u +%Y-%m-%d), ${took} s wall.)"
        echo
    } >"$frag"
    return "$rc"
}

# The settings table at the top of a bench report.md (preset, adapter,
# size, MSAA, frames, scene).
settings() {
    awk 'NR > 1 && /^\|/ { print; t = 1; next } t { exit }' "$1"
}

# From the line starting with TEXT to the end of the input.
from_line() {
    awk -v text="$1" 'index($0, text) == 1 { on = 1 } on'
}

budget() {
    local f="$out/budget.frag"
    local status=0
    run "$f" bench --budget budgets/lavapipe.toml --out "$out/budget" || status=$?
    if [ ! -f "$out/budget/budget.md" ]; then
        echo "results.sh: the budget check wrote no budget.md (exit $status)" >&2
        exit 1
    fi
    cat "$out/budget/budget.md" >>"$f"
    replace budget "$f"
}

default() {
    local f="$out/default.frag"
    run "$f" bench --out "$out/default"
    local r="$out/default/report.md"
    {
        settings "$r"
        echo
        section "$r" "Headline"
        echo
        echo "The image against the baseline's, same run:"
        section "$r" "Comparisons with the baseline"
        echo
        echo "GPU work counters against the baseline, same run (every pass's counts: OUT/default/report.md):"
        echo
        section "$r" "GPU work" | from_line "Against the baseline" | awk '/^\|/'

    } >>"$f"
    replace default "$f"
}

occlusion() {
    local f="$out/occlusion.frag"
    run "$f" bench --view behind-ridge \
        --tiers gpu-cull:occlusion=off,gpu-cull:occlusion=on,gpu-cull:occlusion=auto \
        --frames 8 --warmup 2 --out "$out/occlusion"
    {
        section "$out/occlusion/report.md" "Headline"
        echo
        echo "GPU work counters (same run):"
        section "$out/occlusion/report.md" "GPU work"
    } >>"$f"
    replace occlusion "$f"
}

clipmap() {
    local f="$out/clipmap.frag"
    run "$f" bench --preset continent \
        --tiers off+clipmap:distance=1000,off+clipmap:distance=8000,off+atlas-instanced \
        --frames 8 --warmup 2 --out "$out/clipmap"
    {
        section "$out/clipmap/report.md" "Headline"
        echo
        echo "GPU work counters (same run):"
        section "$out/clipmap/report.md" "GPU work"
        echo
        echo "Clipmap levels (same run):"
        section "$out/clipmap/report.md" "Clipmap"
    } >>"$f"
    replace clipmap "$f"
}

clipmap-accuracy() {
    local f="$out/clipmap-accuracy.frag"
    run "$f" clipmap-errors
    sed 's/^#/###/' "$f.stdout" >>"$f"
    replace clipmap-accuracy "$f"
}

flight() {
    local f="$out/flight.frag"
    run "$f" bench --preset continent --path flight \
        --tiers static-batch+static-chunks,gpu-cull+gpu-cull,camera-grid+clipmap,gpu-cull+atlas-instanced \
        --size 480x270 --out "$out/flight"
    {
        section "$out/flight/report.md" "Headline"
        echo
        echo "Streaming and the tail (same run):"
        section "$out/flight/report.md" "Streaming"
    } >>"$f"
    replace flight "$f"
}

scale() {
    local f="$out/scale.frag"
    run "$f" scale --out "$out/scale"
    awk '/^\|/ { print; t = 1; next } t && !/^\|/ { exit }' "$out/scale/scale.md" >>"$f"
    replace scale "$f"
}

soak() {
    local f="$out/soak.frag"
    local status=0
    run "$f" soak --slides 46 --warmup 20 \
        --tiers gpu-cull+gpu-cull,camera-grid+clipmap,gpu-cull+atlas-instanced || status=$?
    awk '/^summary \(markdown\):/ { on = 1; next } on' "$f.stdout" >>"$f"
    [ "$status" -eq 0 ] || echo "**The soak exited $status: a figure grew past its bound.**" >>"$f"
    replace soak "$f"
}

real-tile() {
    if [ -z "${SWARD_REAL_DATA:-}" ]; then
        echo "results.sh: SWARD_REAL_DATA is not set: real-tile kept as it was" >&2
        return
    fi
    local f="$out/real-tile.frag"
    run "$f" --data "$SWARD_REAL_DATA/client-335" --map Azeroth --tile 42,29 bench \
        --tiers gpu-cull,camera-grid,camera-grid+clipmap --frames 8 --warmup 2 \
        --out "$out/real-tile"
    section "$out/real-tile/report.md" "Headline" >>"$f"
    replace real-tile "$f"
}

compare() {
    if [ -z "${BEFORE:-}" ]; then
        echo "results.sh: BEFORE is not set: compare kept as it was" >&2
        return
    fi
    local f="$out/compare.frag"
    run "$f" compare "$BEFORE" "$out/default" --out "$out/compare"
    sed 's/^#/###/' "$out/compare/compare.md" >>"$f"
    replace compare "$f"
}

# Grass `gpu-cull` with stored descriptors against placements generated on
# the GPU: memory where the world is densest and largest.
placement-memory() {
    local f="$out/placement-memory.frag"
    : >"$f.all"
    for preset in elwynn-dense scale-16; do
        run "$f" bench --preset "$preset" \
            --tiers gpu-cull:placement=descriptors,gpu-cull:placement=gpu \
            --frames 8 --warmup 2 --out "$out/placement-memory-$preset"
        {
            cat "$f"
            section "$out/placement-memory-$preset/report.md" "Grass GPU memory"
            echo
        } >>"$f.all"
    done
    replace placement-memory "$f.all"
}

# What a denser client setting costs: the same view at every density, both
# placement values in one process per density.
placement-density() {
    local f="$out/placement-density.frag"
    : >"$f.all"
    for density in 16 48 128 256; do
        run "$f" bench --preset elwynn-client --density "$density" --view ground-yaw0 \
            --tiers gpu-cull:placement=descriptors,gpu-cull:placement=gpu \
            --frames 8 --warmup 2 --out "$out/placement-density-$density"
        {
            cat "$f"
            section "$out/placement-density-$density/report.md" "Headline"
            echo
            echo "GPU work per pass (same run):"
            echo
            section "$out/placement-density-$density/report.md" "GPU work" |
                awk '/^\|/ { print; t = 1; next } t { exit }'
            echo
            section "$out/placement-density-$density/report.md" "Grass GPU memory"
            echo
        } >>"$f.all"
    done
    replace placement-density "$f.all"
}

# The flight with both placement values, one process: the render thread's
# tail and the streaming work of a tile change.
placement-flight() {
    local f="$out/placement-flight.frag"
    run "$f" bench --preset continent --path flight \
        --tiers gpu-cull:placement=descriptors+gpu-cull,gpu-cull:placement=gpu+gpu-cull \
        --size 480x270 --out "$out/placement-flight"
    {
        section "$out/placement-flight/report.md" "Headline"
        echo
        echo "Streaming and the tail (same run):"
        section "$out/placement-flight/report.md" "Streaming"
    } >>"$f"
    replace placement-flight "$f"
}

load_before="$(uptime | sed 's/.*load average: *//')"
start=$(date +%s)
for w in "${wanted[@]}"; do
    "$w"
done
elapsed=$(($(date +%s) - start))
adapter="$("$SWARD" info 2>/dev/null | sed -n 's/^adapter: *//p' | head -n 1)"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
git diff --quiet HEAD -- . ':!docs/results.md' 2>/dev/null || commit="$commit with uncommitted changes"
{
    echo "Last run: $(date -u '+%Y-%m-%d %H:%M UTC'), \`scripts/results.sh${*:+ $*}\` at commit"
    echo "$commit, release build, adapter ${adapter:-unknown}; sections"
    echo "${wanted[*]} in ${elapsed} s wall on $(nproc) cores (load average"
    echo "before: $load_before; after: $(uptime | sed 's/.*load average: *//')). Below each"
    echo "command: the day it last ran and its wall time (a section not run keeps its own)."
} >"$out/meta.frag"
replace meta "$out/meta.frag"
echo "results.sh: ${wanted[*]} regenerated in ${elapsed} s; $page rewritten" >&2
