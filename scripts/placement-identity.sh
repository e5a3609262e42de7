#!/usr/bin/env bash
# Grass gpu-cull, placement=descriptors against placement=gpu: for each preset,
# one `sward bench` running both (equal instances_drawn and grass.draw VS
# invocations, byte-identical screenshots), then `sward shot` of every named
# view with each (byte-identical PNGs). Prints one line per check and exits
# non-zero at the first difference.
#
#   scripts/placement-identity.sh                      # every preset
#   PRESETS="seams-holes" scripts/placement-identity.sh
#   DATA="--data ../shared/realdata/client-335 --map Azeroth --tile 42,29" \
#     PRESETS=elwynn-client VIEWS="" scripts/placement-identity.sh
#
# SWARD (default target/release/sward), OUT (default out/placement-identity),
# SIZE (shots, default 640x360), DENSITY (adds --density N) can be set too.
set -euo pipefail

SWARD=${SWARD:-target/release/sward}
OUT=${OUT:-out/placement-identity}
PRESETS=${PRESETS:-"elwynn-dense elwynn-client seams-holes continent scale-0.25 scale-1 scale-4 scale-16"}
VIEWS=${VIEWS-"ground-yaw0 ground-yaw90 aerial"}
SIZE=${SIZE:-640x360}
DATA=${DATA:-}
DENSITY_ARGS=()
if [[ -n "${DENSITY:-}" ]]; then
    DENSITY_ARGS=(--density "$DENSITY")
fi
A="gpu-cull:placement=descriptors"
B="gpu-cull:placement=gpu"

# shellcheck disable=SC2086 # DATA is a list of global options
run() { "$SWARD" $DATA "$@"; }

for preset in $PRESETS; do
    dir="$OUT/$preset"
    mkdir -p "$dir"
    start=$(date +%s)
    run bench --preset "$preset" "${DENSITY_ARGS[@]}" --tiers "$A,$B" --out "$dir/bench" >/dev/null
    python3 - "$dir/bench/report.json" "$preset" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
runs = [r for r in report["runs"] if r["tier"]["grass"] == "gpu-cull"]
assert len(runs) == 2, [r["tier"]["label"] for r in report["runs"]]
a, b = runs
def vs(r):
    return r["gpu_work"]["per_pass"]["grass.draw"]["median"]["vs_invocations"]
def place(r):
    p = r["gpu_work"]["per_pass"].get("grass.place")
    return p["median"]["cs_invocations"] if p else 0
same = a["instances_drawn"] == b["instances_drawn"] and vs(a) == vs(b)
print(f"{sys.argv[2]} bench: instances_drawn {a['instances_drawn']} / {b['instances_drawn']}, "
      f"grass.draw VS invocations {vs(a)} / {vs(b)}, grass.place CS invocations {place(b)}, "
      f"generated placements {b['extra'].get('gpu_cull.generated_placements')}")
sys.exit(0 if same else 1)
EOF
    a_png="$dir/bench/gpu-cull+static-chunks.png"
    b_png="$dir/bench/gpu-cull_placement-gpu+static-chunks.png"
    cmp -s "$a_png" "$b_png" || { echo "$preset bench: screenshots differ"; exit 1; }
    echo "$preset bench: screenshots identical"
    for view in $VIEWS; do
        for t in "$A" "$B"; do
            run shot --preset "$preset" "${DENSITY_ARGS[@]}" --view "$view" --size "$SIZE" \
                --tier "$t+static-chunks" --out "$dir/$view-${t##*=}.png" >/dev/null
        done
        cmp -s "$dir/$view-descriptors.png" "$dir/$view-gpu.png" ||
            { echo "$preset $view: images differ"; exit 1; }
        echo "$preset $view: images identical"
    done
    echo "$preset: $(( $(date +%s) - start )) s"
done
