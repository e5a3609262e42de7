#!/usr/bin/env bash
# The continent flight with grass gpu-cull both ways (placement=descriptors
# and placement=gpu, terrain gpu-cull), one process run, then one line per
# run: render-thread CPU per frame (median / p99 / max), the window changes'
# `streaming.techniques` and its parts `.grass` and `.terrain` (wall clock
# around each technique's residency update, median / max over the frames
# that changed the world), the same section on the render thread's own CPU
# clock, and allocations per frame (median / max).
#
#   scripts/flight-streaming.sh                      # runs the bench, then prints
#   REPORT=/work/baseline/flight-3c1ba16/report.json scripts/flight-streaming.sh
#
# SWARD (default target/release/sward) and OUT (default out/flight-streaming).
set -euo pipefail

SWARD=${SWARD:-target/release/sward}
OUT=${OUT:-out/flight-streaming}
if [[ -z "${REPORT:-}" ]]; then
    "$SWARD" bench --preset continent --path flight \
        --tiers gpu-cull:placement=descriptors+gpu-cull,gpu-cull:placement=gpu+gpu-cull \
        --out "$OUT"
    REPORT="$OUT/report.json"
fi

jq -r '
  def f: . * 1000 | round / 1000 | tostring;
  def mm($s): if $s then "\($s.median | f) / \($s.max | f)" else "-" end;
  .runs[] |
  "\(.tier.label // "\(.tier.grass)+\(.tier.terrain)"): render thread \(.cpu_frame_thread_ms.median | f) / \(.cpu_frame_thread_ms.p99 | f) / \(.cpu_frame_thread_ms.max | f) ms;"
  + " streaming.techniques \(mm(.cpu_pass_ms["streaming.techniques"]))"
  + " (grass \(mm(.cpu_pass_ms["streaming.techniques.grass"])),"
  + " terrain \(mm(.cpu_pass_ms["streaming.techniques.terrain"])));"
  + " thread clock \(mm(.cpu_pass_thread_ms["streaming.techniques"]));"
  + " allocations per frame \(.allocs_per_frame.count_median) / \(.allocs_per_frame.count_max);"
  + " changes \(.streaming.changes), tiles in \(.streaming.tiles_loaded), out \(.streaming.tiles_evicted)"
' "$REPORT"
