#!/usr/bin/env bash
# A second lavapipe beside the system's, for comparing drivers in separate
# processes without installing anything: downloads Debian bookworm-backports'
# mesa-vulkan-drivers (Mesa 25.0.7) and the libdrm it needs, unpacks them
# under $DIR (default target/mesa-backports) and writes an ICD file that
# points at the unpacked driver. Then run any sward command under it:
#
#   scripts/mesa-backports.sh                    # fetch and unpack (once)
#   scripts/mesa-backports.sh sward info         # run a command under it
#   scripts/mesa-backports.sh target/release/sward bench --quick
#
# The report names the driver (`adapter.driver`: "llvmpipe Mesa 25.0.7..."),
# so counters of the two drivers are never mixed up: compare them within one
# driver's run (docs/reading-a-report.md). Needs apt-get and network access
# to deb.debian.org; the system's apt state is not touched.
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${DIR:-target/mesa-backports}"
mesa_version="${MESA_VERSION:-25.0.7-2~bpo12+1}"
root="$dir/root"
icd="$dir/lvp_icd.json"
lib="$root/usr/lib/x86_64-linux-gnu"

if [ ! -f "$icd" ]; then
    mkdir -p "$dir/lists/partial" "$dir/debs"
    echo "deb http://deb.debian.org/debian bookworm-backports main" >"$dir/sources.list"
    apt_opts=(-o "Dir::Etc::sourcelist=$(pwd)/$dir/sources.list" -o Dir::Etc::sourceparts=-
        -o "Dir::State::Lists=$(pwd)/$dir/lists" -o Debug::NoLocking=1)
    apt-get "${apt_opts[@]}" update -qq
    candidate() {
        apt-cache "${apt_opts[@]}" policy "$1" | awk '/Candidate:/ { print $2 }'
    }
    (
        cd "$dir/debs"
        apt-get "${apt_opts[@]}" download "mesa-vulkan-drivers=$mesa_version" \
            "libdrm2=$(candidate libdrm2)" "libdrm-amdgpu1=$(candidate libdrm-amdgpu1)"
    )
    for deb in "$dir"/debs/*.deb; do
        dpkg -x "$deb" "$root"
    done
    if [ ! -f "$lib/libvulkan_lvp.so" ]; then
        echo "mesa-backports: $lib/libvulkan_lvp.so missing after unpacking" >&2
        exit 1
    fi
    cat >"$icd" <<EOF
{
    "ICD": {
        "api_version": "1.4.305",
        "library_path": "$(pwd)/$lib/libvulkan_lvp.so"
    },
    "file_format_version": "1.0.0"
}
EOF
    echo "mesa-backports: Mesa $mesa_version unpacked under $dir" >&2
fi

if [ "$#" -gt 0 ]; then
    VK_ICD_FILENAMES="$(pwd)/$icd" LD_LIBRARY_PATH="$(pwd)/$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        WGPU_BACKEND="${WGPU_BACKEND:-vulkan}" exec "$@"
fi
