#!/usr/bin/env bash
# GPU reference run: the default bench, the occlusion bench (view
# behind-ridge) and the occlusion cost on the default walk, at 1920x1080
# with 4x MSAA, written to docs/results-gpu.md (the reports themselves stay
# under $OUT, default out/gpu-reference). Meant for a hardware GPU, where it
# takes a few minutes; on a software adapter (llvmpipe/lavapipe) it runs the
# reduced `--quick` configuration instead and says so in the file.
#
#   scripts/gpu-reference.sh            # build (release) and run
#   SWARD=path/to/sward scripts/gpu-reference.sh   # use an existing binary
set -euo pipefail
cd "$(dirname "$0")/.."

out="${OUT:-out/gpu-reference}"
doc="${DOC:-docs/results-gpu.md}"
if [ -z "${SWARD:-}" ]; then
    cargo build --release -p sward
    SWARD=target/release/sward
fi

adapter="$("$SWARD" info 2>/dev/null | sed -n 's/^adapter: *//p' | head -n 1)"
quick=()
note="full configuration"
case "$adapter" in
    *llvmpipe* | *lavapipe* | *SwiftShader* | *"Software"*)
        quick=(--quick)
        note="software adapter: reduced with --quick (absolute times are CPU-emulated)"
        ;;
esac

size=(--size 1920x1080 --msaa 4)
default_cmd=("$SWARD" bench "${size[@]}" "${quick[@]}" --out "$out/default")
occlusion_cmd=("$SWARD" bench --view behind-ridge
    --tiers gpu-cull:occlusion=off,gpu-cull:occlusion=on,gpu-cull:occlusion=auto
    "${size[@]}" "${quick[@]}" --out "$out/occlusion")
walk_cmd=("$SWARD" bench
    --tiers gpu-cull,gpu-cull:occlusion=on,gpu-cull:occlusion=auto
    "${size[@]}" "${quick[@]}" --out "$out/occlusion-walk")

start=$(date +%s)
"${default_cmd[@]}"
"${occlusion_cmd[@]}"
"${walk_cmd[@]}"
elapsed=$(( $(date +%s) - start ))

{
    echo "# GPU reference results"
    echo
    echo "Written by \`scripts/gpu-reference.sh\` on $(date -u +%Y-%m-%d) in ${elapsed} s."
    echo
    echo "- adapter: ${adapter:-unknown} ($note)"
    echo "- default bench: \`${default_cmd[*]}\`"
    echo "- occlusion bench: \`${occlusion_cmd[*]}\`"
    echo "- occlusion on the walk: \`${walk_cmd[*]}\`"
    echo
    echo "## Default bench"
    echo
    sed 's/^#/##/' "$out/default/report.md"
    echo
    echo "## Occlusion bench (view behind-ridge)"
    echo
    sed 's/^#/##/' "$out/occlusion/report.md"
    echo
    echo "## Occlusion cost on the default walk"
    echo
    sed 's/^#/##/' "$out/occlusion-walk/report.md"
} > "$doc"
echo "wrote $doc"
