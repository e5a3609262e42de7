//! The tiles' own tileset textures on the GPU: the layer texture arrays the
//! terrain splat samples (`terrain_shade`'s `layer_textures` and the three
//! BC arrays), with one layer per distinct texture the resident tiles name.
//!
//! Every array is `LAYER_SIZE` (256) square with a full mip chain. The RGBA8
//! array starts with sward's four procedural layer textures (what a preset's
//! MTEX names draw) and, for data with textures, the checker that stands in
//! for a texture the data lacks. A tileset BLP goes:
//!
//! * as its BC blocks into the BC1, BC2 or BC3 array when it is DXT, the
//!   device samples BC ([`Capability::TextureCompressionBc`]) and decoding
//!   was not asked for, and it is square with a whole mip chain from 256
//!   down (a larger one gives up its top levels: a 512 texture's level 1 is
//!   a 256 texture);
//! * decoded to RGBA8 otherwise (a side other than a power of two of at
//!   least 256, or not square, is resampled to 256 by nearest texel and its
//!   chain rebuilt with the sRGB box filter).
//!
//! The terrain only reads a layer's colour (`.rgb`), so a DXT1 file without
//! alpha whose three-colour blocks use index 3 (opaque black in the file,
//! transparent black on a BC1 texture) samples the same colour either way.
//!
//! Layers are reference counted by texture (name, case-insensitive): a
//! tile's textures are acquired when the tile becomes resident and released
//! when it leaves; a texture another resident tile names keeps its layer.
//! A record's layer code is `array << 30 | layer` ([`TilesetCode`]).

use std::collections::HashMap;

use sward_engine::{Capability, GpuContext};
use sward_scenes::world::coords::TileCoord;
use sward_scenes::world::{AdtTile, TileTexture};
use sward_scenes::{BcFormat, DetailTexture, TexturePixels};

use super::splat::{layer_texture, mip_chain, mip_count, texture_bytes, LAYER_KINDS, LAYER_SIZE};
use sward_scenes::formats::TextureUpload;

/// Layers of each data array of a streaming splat (distinct textures of
/// the resident tiles at once; a 5x5 window of client tiles names far
/// fewer).
pub const STREAMING_TILESET_LAYERS: u32 = 96;

/// The array a layer code points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TilesetArray {
    /// `Rgba8UnormSrgb`: procedural layers, the checker, decoded textures.
    Rgba,
    /// `Bc1RgbaUnormSrgb` (DXT1).
    Bc1,
    /// `Bc2RgbaUnormSrgb` (DXT3).
    Bc2,
    /// `Bc3RgbaUnormSrgb` (DXT5).
    Bc3,
}

impl TilesetArray {
    const ALL: [Self; 4] = [Self::Rgba, Self::Bc1, Self::Bc2, Self::Bc3];

    /// Position in [`TilesetArray`] order (RGBA8, BC1, BC2, BC3).
    pub fn index(self) -> usize {
        self as usize
    }

    fn format(self) -> wgpu::TextureFormat {
        match self {
            Self::Rgba => wgpu::TextureFormat::Rgba8UnormSrgb,
            Self::Bc1 => wgpu::TextureFormat::Bc1RgbaUnormSrgb,
            Self::Bc2 => wgpu::TextureFormat::Bc2RgbaUnormSrgb,
            Self::Bc3 => wgpu::TextureFormat::Bc3RgbaUnormSrgb,
        }
    }

    fn of(format: BcFormat) -> Self {
        match format {
            BcFormat::Bc1 | BcFormat::Bc1Opaque => Self::Bc1,
            BcFormat::Bc2 => Self::Bc2,
            BcFormat::Bc3 => Self::Bc3,
        }
    }

    /// Bytes of one layer with its whole chain.
    fn layer_bytes(self) -> u64 {
        match self {
            Self::Rgba => texture_bytes([LAYER_SIZE; 2], mip_count(LAYER_SIZE), 1, 4),
            _ => {
                let block = if self == Self::Bc1 { 8 } else { 16 };
                (0..mip_count(LAYER_SIZE))
                    .map(|l| u64::from((LAYER_SIZE >> l).max(1).div_ceil(4)).pow(2) * block)
                    .sum()
            }
        }
    }
}

/// A record's layer code: the array in bits 30-31, the layer below.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TilesetCode(pub u32);

impl TilesetCode {
    /// The code of `layer` of `array`.
    pub fn new(array: TilesetArray, layer: u32) -> Self {
        debug_assert!(layer < 1 << 30);
        Self(((array as u32) << 30) | layer)
    }

    /// The array and layer.
    pub fn parts(self) -> (TilesetArray, u32) {
        (
            TilesetArray::ALL[(self.0 >> 30) as usize],
            self.0 & 0x3fff_ffff,
        )
    }
}

/// Layer of the checker placeholder in the RGBA8 array.
const CHECKER_LAYER: u32 = LAYER_KINDS.len() as u32;

/// How the resident tileset textures went to the GPU (distinct textures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TilesetStats {
    /// DXT textures sampled from their BC blocks.
    pub bc: u32,
    /// DXT textures decoded to RGBA8 on the CPU.
    pub decoded: u32,
    /// Textures stored as RGBA8 (raw and palettized BLPs).
    pub rgba: u32,
    /// Textures resampled to 256 square (another size or not square).
    pub resampled: u32,
    /// Names the data lacks (or cannot read), drawn as the checker.
    pub placeholders: u32,
    /// Textures that found no free layer (drawn as the checker; a warning
    /// says so).
    pub over_capacity: u32,
}

struct Layer {
    code: TilesetCode,
    refs: u32,
}

/// The tileset texture arrays and which texture holds which layer.
pub struct TilesetArrays {
    arrays: [wgpu::Texture; 4],
    views: [wgpu::TextureView; 4],
    /// Whether the BC arrays are real (the shader's `TILESET_BC`).
    bc: bool,
    /// Free layers of each array.
    free: [Vec<u32>; 4],
    layers: HashMap<String, Layer>,
    /// The texture keys each resident tile holds.
    tiles: HashMap<TileCoord, Vec<String>>,
    /// Placeholder names seen (counted once each).
    missing: HashMap<String, u32>,
    stats: TilesetStats,
    bytes: u64,
}

fn key(name: &str) -> String {
    name.replace('/', "\\").to_ascii_lowercase()
}

impl TilesetArrays {
    /// Whether DXT tileset textures may keep their blocks on `gpu` under
    /// `upload`.
    pub fn samples_bc(gpu: &GpuContext, upload: TextureUpload) -> bool {
        upload != TextureUpload::ForceDecode
            && gpu.caps.has(Capability::TextureCompressionBc)
            && gpu
                .device
                .features()
                .contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
    }

    /// The array `tex` goes to ([`Self::samples_bc`] says `bc`).
    pub fn target(tex: &DetailTexture, bc: bool) -> TilesetArray {
        match &tex.pixels {
            TexturePixels::Bc(b)
                if bc && square_from(tex.width, tex.height, b.mips.len()).is_some() =>
            {
                TilesetArray::of(b.format)
            }
            _ => TilesetArray::Rgba,
        }
    }

    /// The arrays for a splat: `data` says whether the tiles carry data
    /// textures (then the data arrays have `layers[a]` layers each, in
    /// [`TilesetArray`] order, RGBA8 besides its fixed ones; otherwise only
    /// the four procedural layers exist and the BC arrays are stand-ins).
    pub fn new(gpu: &GpuContext, data: bool, layers: [u32; 4], upload: TextureUpload) -> Self {
        let bc = data && Self::samples_bc(gpu, upload);
        let base = CHECKER_LAYER + u32::from(data);
        let rgba_layers = base + if data { layers[0] } else { 0 };
        let mut bytes = 0;
        let mut make = |array: TilesetArray, count: u32| {
            bytes += array.layer_bytes() * u64::from(count);
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(match array {
                    TilesetArray::Rgba => "terrain.layer_textures",
                    TilesetArray::Bc1 => "terrain.tileset_bc1",
                    TilesetArray::Bc2 => "terrain.tileset_bc2",
                    TilesetArray::Bc3 => "terrain.tileset_bc3",
                }),
                size: wgpu::Extent3d {
                    width: LAYER_SIZE,
                    height: LAYER_SIZE,
                    depth_or_array_layers: count,
                },
                mip_level_count: mip_count(LAYER_SIZE),
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: array.format(),
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            })
        };
        let rgba = make(TilesetArray::Rgba, rgba_layers);
        let bc_arrays = if bc {
            [
                make(TilesetArray::Bc1, layers[1].max(1)),
                make(TilesetArray::Bc2, layers[2].max(1)),
                make(TilesetArray::Bc3, layers[3].max(1)),
            ]
        } else {
            // Stand-ins the layout needs; the shader never reads them
            // (TILESET_BC is false).
            [rgba.clone(), rgba.clone(), rgba.clone()]
        };
        let [b1, b2, b3] = bc_arrays;
        let arrays = [rgba, b1, b2, b3];
        let views = arrays.clone().map(|t| {
            t.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            })
        });
        for (layer, kind) in LAYER_KINDS.iter().enumerate() {
            let mips = mip_chain(layer_texture(*kind, LAYER_SIZE), LAYER_SIZE);
            write_layer(gpu, &arrays[0], layer as u32, TilesetArray::Rgba, &mips);
        }
        if data {
            write_layer(
                gpu,
                &arrays[0],
                CHECKER_LAYER,
                TilesetArray::Rgba,
                &checker_levels(),
            );
        }
        let free = [0, 1, 2, 3].map(|a| match a {
            0 if data => (base..rgba_layers).rev().collect(),
            1..=3 if bc => (0..layers[a].max(1)).rev().collect(),
            _ => Vec::new(),
        });
        Self {
            arrays,
            views,
            bc,
            free,
            layers: HashMap::new(),
            tiles: HashMap::new(),
            missing: HashMap::new(),
            stats: TilesetStats::default(),
            bytes,
        }
    }

    /// Whether the tiles' DXT textures are sampled from BC arrays (the
    /// terrain pipelines' `TILESET_BC` constant).
    pub fn bc(&self) -> bool {
        self.bc
    }

    /// The pipeline constants the terrain shaders take.
    pub fn shader_constants(&self) -> Vec<(&'static str, f64)> {
        vec![("TILESET_BC", if self.bc { 1.0 } else { 0.0 })]
    }

    /// Views in binding order: RGBA8, BC1, BC2, BC3.
    pub fn views(&self) -> &[wgpu::TextureView; 4] {
        &self.views
    }

    /// Bytes of GPU memory the arrays hold.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
    }

    /// How the resident textures went.
    pub fn stats(&self) -> TilesetStats {
        self.stats
    }

    /// The layer code of each MTEX entry of `tile` (coordinate `coord`),
    /// acquiring layers (and uploading textures) for the ones not yet
    /// resident; call [`Self::release_tile`] when the tile leaves. A tile
    /// acquired again first releases what it held.
    pub fn acquire_tile(&mut self, gpu: &GpuContext, coord: TileCoord, tile: &AdtTile) -> Vec<u32> {
        self.release_tile(coord);
        let mut held = Vec::new();
        let codes = (0u32..)
            .zip(&tile.textures)
            .map(|(id, name)| match tile.tile_texture(id) {
                TileTexture::Procedural => {
                    sward_scenes::presets::tileset::LayerKind::from_texture(name, id) as u32
                }
                TileTexture::Missing(reason) => {
                    let k = key(name);
                    if !self.missing.contains_key(&k) {
                        log::debug!("tileset texture {name}: {reason}; checker");
                        self.stats.placeholders += 1;
                    }
                    *self.missing.entry(k.clone()).or_default() += 1;
                    held.push(format!("missing:{k}"));
                    TilesetCode::new(TilesetArray::Rgba, CHECKER_LAYER).0
                }
                TileTexture::Loaded(tex) => {
                    let k = key(name);
                    let code = match self.layers.get_mut(&k) {
                        Some(l) => {
                            l.refs += 1;
                            l.code
                        }
                        None => match self.upload_texture(gpu, name, tex) {
                            Some(code) => {
                                self.layers.insert(k.clone(), Layer { code, refs: 1 });
                                code
                            }
                            None => TilesetCode::new(TilesetArray::Rgba, CHECKER_LAYER),
                        },
                    };
                    held.push(k);
                    code.0
                }
            })
            .collect();
        self.tiles.insert(coord, held);
        codes
    }

    /// Releases the layers tile `coord` held; a layer no resident tile
    /// names any more is free for the next texture.
    pub fn release_tile(&mut self, coord: TileCoord) {
        let Some(held) = self.tiles.remove(&coord) else {
            return;
        };
        for k in held {
            if let Some(m) = k.strip_prefix("missing:") {
                if let Some(n) = self.missing.get_mut(m) {
                    *n -= 1;
                    if *n == 0 {
                        self.missing.remove(m);
                        self.stats.placeholders -= 1;
                    }
                }
                continue;
            }
            let Some(l) = self.layers.get_mut(&k) else {
                continue;
            };
            l.refs -= 1;
            if l.refs == 0 {
                let (array, layer) = l.code.parts();
                self.free[array.index()].push(layer);
                self.layers.remove(&k);
            }
        }
    }

    /// Uploads `tex` into a free layer; `None` (with a warning) when its
    /// array is full or it cannot be decoded.
    fn upload_texture(
        &mut self,
        gpu: &GpuContext,
        name: &str,
        tex: &DetailTexture,
    ) -> Option<TilesetCode> {
        let prepared = match prepare(tex, self.bc) {
            Ok(p) => p,
            Err(e) => {
                log::warn!("tileset texture {name}: {e}; drawn as a checker placeholder");
                self.stats.placeholders += 1;
                return None;
            }
        };
        let Some(layer) = self.free[prepared.array.index()].pop() else {
            log::warn!(
                "tileset texture {name}: every {:?} layer is taken ({} textures resident); drawn as a checker placeholder",
                prepared.array,
                self.layers.len()
            );
            self.stats.over_capacity += 1;
            return None;
        };
        write_layer(
            gpu,
            &self.arrays[prepared.array.index()],
            layer,
            prepared.array,
            &prepared.levels,
        );
        match prepared.way {
            Way::Bc => self.stats.bc += 1,
            Way::Decoded => self.stats.decoded += 1,
            Way::Rgba => self.stats.rgba += 1,
        }
        self.stats.resampled += u32::from(prepared.resampled);
        Some(TilesetCode::new(prepared.array, layer))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    Bc,
    Decoded,
    Rgba,
}

/// A texture in the form of one array layer.
struct Prepared {
    array: TilesetArray,
    levels: Vec<Vec<u8>>,
    way: Way,
    resampled: bool,
}

/// The levels of `tex` as one 256-square layer: its BC blocks when `bc`
/// allows and the chain fits, else RGBA8.
/// The levels to skip so that a `w x h` texture with `levels` levels is a
/// whole 256 chain: `None` unless it is square, a power of two of at least
/// 256, with every level from 256 down.
fn square_from(w: u32, h: u32, levels: usize) -> Option<usize> {
    let want = mip_count(LAYER_SIZE) as usize;
    if w != h || !w.is_power_of_two() || w < LAYER_SIZE {
        return None;
    }
    let skip = (w / LAYER_SIZE).trailing_zeros() as usize;
    (levels >= skip + want).then_some(skip)
}

fn prepare(tex: &DetailTexture, bc: bool) -> Result<Prepared, String> {
    let want = mip_count(LAYER_SIZE) as usize;
    if let TexturePixels::Bc(b) = &tex.pixels {
        if bc {
            if let Some(skip) = square_from(tex.width, tex.height, b.mips.len()) {
                return Ok(Prepared {
                    array: TilesetArray::of(b.format),
                    levels: b.mips[skip..skip + want].to_vec(),
                    way: Way::Bc,
                    resampled: false,
                });
            }
        }
    }
    let way = if matches!(tex.pixels, TexturePixels::Bc(_)) {
        Way::Decoded
    } else {
        Way::Rgba
    };
    if let Some(skip) = square_from(tex.width, tex.height, tex.mip_count()) {
        let levels = (skip..skip + want)
            .map(|l| tex.rgba_level(l).map(std::borrow::Cow::into_owned))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Prepared {
            array: TilesetArray::Rgba,
            levels,
            way,
            resampled: false,
        });
    }
    let top = tex.rgba_level(0)?;
    let (w, h) = (tex.width.max(1), tex.height.max(1));
    let mut level0 = Vec::with_capacity((LAYER_SIZE * LAYER_SIZE * 4) as usize);
    for y in 0..LAYER_SIZE {
        let sy = (u64::from(y) * u64::from(h) / u64::from(LAYER_SIZE)) as u32;
        for x in 0..LAYER_SIZE {
            let sx = (u64::from(x) * u64::from(w) / u64::from(LAYER_SIZE)) as u32;
            let at = ((sy * w + sx) * 4) as usize;
            level0.extend_from_slice(&top[at..at + 4]);
        }
    }
    Ok(Prepared {
        array: TilesetArray::Rgba,
        levels: mip_chain(level0, LAYER_SIZE),
        way,
        resampled: true,
    })
}

/// The checker placeholder: 32-texel magenta and black squares on the
/// 256 layer, with its chain.
fn checker_levels() -> Vec<Vec<u8>> {
    let mut level0 = Vec::with_capacity((LAYER_SIZE * LAYER_SIZE * 4) as usize);
    for y in 0..LAYER_SIZE {
        for x in 0..LAYER_SIZE {
            let on = ((x / 32) + (y / 32)) % 2 == 0;
            level0.extend_from_slice(if on {
                &[255, 0, 255, 255]
            } else {
                &[0, 0, 0, 255]
            });
        }
    }
    mip_chain(level0, LAYER_SIZE)
}

/// Writes `levels` (RGBA8 texels or BC blocks of `array`'s format) into
/// layer `layer`; BC levels below 4x4 are written as one whole block.
fn write_layer(
    gpu: &GpuContext,
    texture: &wgpu::Texture,
    layer: u32,
    array: TilesetArray,
    levels: &[Vec<u8>],
) {
    for (level, data) in levels.iter().enumerate() {
        let side = (LAYER_SIZE >> level).max(1);
        let (bytes_per_row, rows, extent) = match array {
            TilesetArray::Rgba => (side * 4, side, side),
            _ => {
                let blocks = side.div_ceil(4);
                let block = if array == TilesetArray::Bc1 { 8 } else { 16 };
                (blocks * block, blocks, blocks * 4)
            }
        };
        gpu.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: level as u32,
                origin: wgpu::Origin3d {
                    x: 0,
                    y: 0,
                    z: layer,
                },
                aspect: wgpu::TextureAspect::All,
            },
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(rows),
            },
            wgpu::Extent3d {
                width: extent,
                height: extent,
                depth_or_array_layers: 1,
            },
        );
    }
}

/// Whether any tile of `world` carries data textures.
pub fn world_has_tilesets(world: &sward_scenes::World) -> bool {
    world.tiles().iter().any(|t| !t.tileset.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(side: u32, rgba: [u8; 4]) -> DetailTexture {
        let mut mips = Vec::new();
        let mut s = side;
        loop {
            mips.push(rgba.repeat((s * s) as usize));
            if s == 1 {
                break;
            }
            s /= 2;
        }
        DetailTexture::rgba(side, side, mips)
    }

    #[test]
    fn codes_round_trip_their_array_and_layer() {
        for a in TilesetArray::ALL {
            for layer in [0, 5, (1 << 30) - 1] {
                assert_eq!(TilesetCode::new(a, layer).parts(), (a, layer));
            }
        }
        assert_eq!(TilesetCode::new(TilesetArray::Rgba, 3).0, 3);
    }

    #[test]
    fn textures_become_one_256_layer_each_way() {
        // 256 square with its chain: kept as it is.
        let p = prepare(&solid(256, [10, 20, 30, 255]), true).expect("prepare");
        assert_eq!(
            (p.array, p.way, p.resampled),
            (TilesetArray::Rgba, Way::Rgba, false)
        );
        assert_eq!(p.levels.len(), 9);
        assert_eq!(&p.levels[0][..4], &[10, 20, 30, 255]);
        // 512: its top level is dropped.
        let p = prepare(&solid(512, [1, 2, 3, 255]), true).expect("prepare");
        assert_eq!((p.levels.len(), p.levels[0].len()), (9, 256 * 256 * 4));
        assert!(!p.resampled);
        // 64: resampled up to 256, the chain rebuilt.
        let p = prepare(&solid(64, [200, 100, 50, 255]), true).expect("prepare");
        assert!(p.resampled);
        assert_eq!(p.levels.len(), 9);
        assert_eq!(&p.levels[0][..4], &[200, 100, 50, 255]);
        assert_eq!(&p.levels[8][..4], &[200, 100, 50, 255]);
    }

    #[test]
    fn dxt_keeps_its_blocks_only_when_bc_is_on() {
        // One solid 4-colour-mode block per 4x4 (c0 = 0x8410 grey, c1 = 0,
        // every index 0), every level down to 1x1.
        let block = [0x10, 0x84, 0, 0, 0, 0, 0, 0];
        let mips = (0..9)
            .map(|l| block.repeat(((256u32 >> l).max(1).div_ceil(4) as usize).pow(2)))
            .collect();
        let bc = DetailTexture {
            width: 256,
            height: 256,
            pixels: TexturePixels::Bc(sward_scenes::BcMips {
                format: BcFormat::Bc1Opaque,
                mips,
            }),
        };
        let p = prepare(&bc, true).expect("bc");
        assert_eq!((p.array, p.way), (TilesetArray::Bc1, Way::Bc));
        assert_eq!(p.levels[0].len(), 64 * 64 * 8);
        let p = prepare(&bc, false).expect("decoded");
        assert_eq!((p.array, p.way), (TilesetArray::Rgba, Way::Decoded));
        let want = bc.rgba_level(0).expect("decode");
        assert_eq!(p.levels[0], want.into_owned());
    }
}
