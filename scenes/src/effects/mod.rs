//! Ground-effect tables: GroundEffectTexture (which doodads a terrain layer
//! grows, how densely) and GroundEffectDoodad (doodad id -> model path), the
//! three GroundEffectTexture record layouts, and layout detection from a raw
//! WDBC view (the formats module parses the file, this module types it).
//!
//! Layouts (every field a u32):
//!
//! | layout | fields | bytes | order |
//! |---|---|---|---|
//! | [`GroundEffectLayout::Legacy053`] | 11 | 44 | id, date stamp, continent, zone, texture id, doodad[4], density, sound |
//! | [`GroundEffectLayout::Classic1121`] | 7 | 28 | id, doodad[4], density, sound |
//! | [`GroundEffectLayout::Wotlk335`] | 11 | 44 | id, doodad[4], weight[4], density, terrain type |
//!
//! Layouts without stored weights give every non-empty slot weight 1.
//!
//! Slot values are GroundEffectDoodad keys. 0xFFFFFFFF is always empty. 0 is
//! empty unless a doodad record is keyed 0 ([`GroundEffects::slot_is_empty`]):
//! 1.12.1 tables key doodads by their *internal id* (GroundEffectDoodad field
//! 1; the record id is internal id + 1) and internal id 0 is a real model
//! (ElwFlo01), while 3.3.5a tables key them by record id, which starts at 1,
//! so 0 there is an unused slot.
//!
//! Density 0 means 8. The per-cell policy clamps anything above 24 to 24
//! ([`effective_density`]); the client routine applies no cap
//! ([`ResolvedEffect::client_density`]).

use std::collections::{HashMap, HashSet};

/// Density used when a record stores 0.
pub const DEFAULT_DENSITY: u32 = 8;
/// Largest density honoured; larger values are clamped.
pub const MAX_DENSITY: u32 = 24;
/// Directory that detail-doodad model names resolve under.
pub const DETAIL_DIR: &str = "World\\NoDXT\\Detail\\";

/// The density a record's stored value stands for: 0 means 8, above 24 is 24.
pub fn effective_density(stored: u32) -> u32 {
    match stored {
        0 => DEFAULT_DENSITY,
        d => d.min(MAX_DENSITY),
    }
}

/// Whether a doodad slot value may mean "no doodad" (0 or 0xFFFFFFFF),
/// without knowing the doodad table; [`GroundEffects::slot_is_empty`] decides
/// for 0 with the table.
pub fn slot_is_empty(v: u32) -> bool {
    v == 0 || v == u32::MAX
}

/// A GroundEffectTexture record layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum GroundEffectLayout {
    /// 0.5.3-era 11 fields: id, date, continent, zone, texture, doodad[4], density, sound.
    Legacy053,
    /// 1.12.1 7 fields: id, doodad[4], density, sound.
    Classic1121,
    /// 3.3.5a 11 fields: id, doodad[4], weight[4], density, terrain type.
    Wotlk335,
}

impl GroundEffectLayout {
    /// Every layout.
    pub const ALL: [Self; 3] = [Self::Legacy053, Self::Classic1121, Self::Wotlk335];

    /// Number of u32 fields per record.
    pub fn field_count(self) -> u32 {
        match self {
            Self::Classic1121 => 7,
            Self::Legacy053 | Self::Wotlk335 => 11,
        }
    }

    /// Record size in bytes.
    pub fn record_size(self) -> u32 {
        self.field_count() * 4
    }

    /// Short name (`0.5.3`, `1.12.1`, `3.3.5a`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Legacy053 => "0.5.3",
            Self::Classic1121 => "1.12.1",
            Self::Wotlk335 => "3.3.5a",
        }
    }

    fn doodad_fields(self) -> std::ops::Range<usize> {
        match self {
            Self::Legacy053 => 5..9,
            Self::Classic1121 | Self::Wotlk335 => 1..5,
        }
    }
}

/// One GroundEffectTexture record, layout-independent.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct GroundEffectTexture {
    /// Record id (what MCLY `effect_id` refers to).
    pub id: u32,
    /// GroundEffectDoodad ids of the four slots (0 or 0xFFFFFFFF = empty).
    pub doodads: [u32; 4],
    /// Selection weight per slot (1 per non-empty slot in unweighted layouts).
    pub weights: [u32; 4],
    /// Density as stored (see [`effective_density`]).
    pub density: u32,
    /// Sound id (0.5.3 and 1.12.1), 0 otherwise.
    pub sound: u32,
    /// Terrain type (3.3.5a), 0 otherwise.
    pub terrain_type: u32,
    /// 0.5.3 date stamp, continent, zone and texture id; zeros otherwise.
    pub legacy: [u32; 4],
}

impl GroundEffectTexture {
    /// [`effective_density`] of this record.
    pub fn effective_density(&self) -> u32 {
        effective_density(self.density)
    }

    /// Decodes one record of `layout` from its u32 fields.
    pub fn from_fields(layout: GroundEffectLayout, f: &[u32]) -> Result<Self, EffectError> {
        if f.len() != layout.field_count() as usize {
            return Err(EffectError::BadShape {
                reason: format!(
                    "{} fields for a {} record of {}",
                    f.len(),
                    layout.name(),
                    layout.field_count()
                ),
            });
        }
        let slots: [u32; 4] = std::array::from_fn(|i| f[layout.doodad_fields().start + i]);
        let uniform = slots.map(|s| u32::from(!slot_is_empty(s)));
        Ok(match layout {
            GroundEffectLayout::Legacy053 => Self {
                id: f[0],
                doodads: slots,
                weights: uniform,
                density: f[9],
                sound: f[10],
                terrain_type: 0,
                legacy: [f[1], f[2], f[3], f[4]],
            },
            GroundEffectLayout::Classic1121 => Self {
                id: f[0],
                doodads: slots,
                weights: uniform,
                density: f[5],
                sound: f[6],
                ..Self::default()
            },
            GroundEffectLayout::Wotlk335 => Self {
                id: f[0],
                doodads: slots,
                weights: [f[5], f[6], f[7], f[8]],
                density: f[9],
                terrain_type: f[10],
                ..Self::default()
            },
        })
    }

    /// Encodes this record in `layout` (fields a layout lacks are dropped).
    pub fn to_fields(&self, layout: GroundEffectLayout) -> Vec<u32> {
        let d = self.doodads;
        match layout {
            GroundEffectLayout::Legacy053 => {
                let l = self.legacy;
                vec![
                    self.id,
                    l[0],
                    l[1],
                    l[2],
                    l[3],
                    d[0],
                    d[1],
                    d[2],
                    d[3],
                    self.density,
                    self.sound,
                ]
            }
            GroundEffectLayout::Classic1121 => {
                vec![self.id, d[0], d[1], d[2], d[3], self.density, self.sound]
            }
            GroundEffectLayout::Wotlk335 => {
                let w = self.weights;
                vec![
                    self.id,
                    d[0],
                    d[1],
                    d[2],
                    d[3],
                    w[0],
                    w[1],
                    w[2],
                    w[3],
                    self.density,
                    self.terrain_type,
                ]
            }
        }
    }
}

/// One GroundEffectDoodad record.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GroundEffectDoodad {
    /// The key GroundEffectTexture slots refer to: the record id in 3.3.5a
    /// and 2-field tables, the internal id (field 1) in 1.12.1's
    /// `id, internal id, path` table.
    pub id: u32,
    /// Model name as stored (often a bare `ElwGra01.mdl`).
    pub model: String,
    /// Flags as stored (0 where the layout has none).
    pub flags: u32,
}

impl GroundEffectDoodad {
    /// The model path the renderer loads: [`normalize_model_path`] of `model`.
    pub fn model_path(&self) -> String {
        normalize_model_path(&self.model)
    }
}

/// Resolves a GroundEffectDoodad model name: forward slashes become
/// backslashes, `.mdl`/`.mdx` become `.m2`, and a bare file name is placed
/// under `World\NoDXT\Detail\`.
pub fn normalize_model_path(name: &str) -> String {
    let mut path = name.trim().replace('/', "\\");
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".mdl") || lower.ends_with(".mdx") {
        path.truncate(path.len() - 4);
        path.push_str(".m2");
    }
    if !path.contains('\\') {
        path.insert_str(0, DETAIL_DIR);
    }
    path
}

/// A raw WDBC view of a GroundEffectTexture file, as the formats parser sees it.
#[derive(Clone, Copy, Debug)]
pub struct RawTable<'a> {
    /// Record count from the header.
    pub record_count: u32,
    /// Field count from the header.
    pub field_count: u32,
    /// Record size in bytes from the header.
    pub record_size: u32,
    /// The records as little-endian u32s, `record_count * field_count` long.
    pub rows: &'a [u32],
}

impl RawTable<'_> {
    fn row(&self, i: usize) -> &[u32] {
        let n = self.field_count as usize;
        &self.rows[i * n..(i + 1) * n]
    }
}

/// Detects the GroundEffectTexture layout of `raw`.
///
/// The shape (field count, record size) picks the candidates; plausibility
/// then decides between the two 11-field layouts: every doodad slot must be
/// empty or a known GroundEffectDoodad id (`known_doodads`; without it, a value
/// below 65536), at least one slot in the table must be non-empty, and density
/// must be at most 1000. More or fewer than one plausible layout is an error.
pub fn detect_layout(
    raw: &RawTable<'_>,
    known_doodads: Option<&HashSet<u32>>,
) -> Result<GroundEffectLayout, EffectError> {
    let expected = raw.record_count as usize * raw.field_count as usize;
    if raw.rows.len() != expected || raw.record_size != raw.field_count * 4 {
        return Err(EffectError::BadShape {
            reason: format!(
                "{} records x {} fields, record size {}, {} values",
                raw.record_count,
                raw.field_count,
                raw.record_size,
                raw.rows.len()
            ),
        });
    }
    let shaped: Vec<_> = GroundEffectLayout::ALL
        .into_iter()
        .filter(|l| l.field_count() == raw.field_count)
        .collect();
    if shaped.is_empty() {
        return Err(EffectError::UnknownLayout {
            field_count: raw.field_count,
            record_size: raw.record_size,
        });
    }
    let plausible: Vec<_> = shaped
        .iter()
        .copied()
        .filter(|&l| is_plausible(raw, l, known_doodads))
        .collect();
    match plausible.as_slice() {
        [one] => Ok(*one),
        [] => Err(EffectError::Implausible { candidates: shaped }),
        many => Err(EffectError::Ambiguous {
            candidates: many.to_vec(),
        }),
    }
}

fn is_plausible(
    raw: &RawTable<'_>,
    layout: GroundEffectLayout,
    known: Option<&HashSet<u32>>,
) -> bool {
    let valid_ref = |v: u32| slot_is_empty(v) || known.map_or(v < 0x1_0000, |k| k.contains(&v));
    let mut any_slot = false;
    for i in 0..raw.record_count as usize {
        let row = raw.row(i);
        let slots = &row[layout.doodad_fields()];
        if !slots.iter().all(|&v| valid_ref(v)) {
            return false;
        }
        any_slot |= slots.iter().any(|&v| !slot_is_empty(v));
        let density = match layout {
            GroundEffectLayout::Classic1121 => row[5],
            _ => row[9],
        };
        if density > 1000 {
            return false;
        }
        if layout == GroundEffectLayout::Wotlk335 && row[5..9].iter().any(|&w| w > 0x1_0000) {
            return false;
        }
    }
    any_slot
}

/// The layout [`GroundEffects::from_raw`] reads `raw` in: [`detect_layout`]'s
/// answer where it has one. Where every layout of the shape is implausible,
/// a dangling doodad reference (a slot naming a key `known_doodads` lacks)
/// does not rule a layout out, as the client only skips those doodads: of
/// the layouts that are plausible apart from such slots (densities and
/// weights in range, at least one slot naming a known doodad), the one with
/// the fewest dangling slots is taken; a tie is ambiguous. A table is
/// refused only when its shape fits no layout or its values fit none.
pub fn choose_layout(
    raw: &RawTable<'_>,
    known_doodads: Option<&HashSet<u32>>,
) -> Result<GroundEffectLayout, EffectError> {
    let candidates = match detect_layout(raw, known_doodads) {
        Err(EffectError::Implausible { candidates }) => candidates,
        other => return other,
    };
    let Some(known) = known_doodads else {
        return Err(EffectError::Implausible { candidates });
    };
    let mut scored: Vec<(usize, GroundEffectLayout)> = candidates
        .iter()
        .filter_map(|&l| dangling_slots(raw, l, known).map(|n| (n, l)))
        .collect();
    scored.sort_by_key(|&(n, _)| n);
    match scored.as_slice() {
        [] => Err(EffectError::Implausible { candidates }),
        [(n, a), (m, b), ..] if n == m => Err(EffectError::Ambiguous {
            candidates: vec![*a, *b],
        }),
        [(_, l), ..] => Ok(*l),
    }
}

/// Slots of `raw` read as `layout` that name a doodad `known` lacks; `None`
/// when the layout is implausible for another reason (a density above
/// 1000, a 3.3.5a weight above 65536, or no slot naming a known doodad).
fn dangling_slots(
    raw: &RawTable<'_>,
    layout: GroundEffectLayout,
    known: &HashSet<u32>,
) -> Option<usize> {
    let (mut dangling, mut any_known) = (0, false);
    for i in 0..raw.record_count as usize {
        let row = raw.row(i);
        for &v in &row[layout.doodad_fields()] {
            if slot_is_empty(v) && !known.contains(&v) {
                continue;
            }
            if known.contains(&v) {
                any_known = true;
            } else {
                dangling += 1;
            }
        }
        let density = match layout {
            GroundEffectLayout::Classic1121 => row[5],
            _ => row[9],
        };
        if density > 1000
            || (layout == GroundEffectLayout::Wotlk335 && row[5..9].iter().any(|&w| w > 0x1_0000))
        {
            return None;
        }
    }
    any_known.then_some(dangling)
}

/// The two ground-effect tables, indexed by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroundEffects {
    /// Layout the GroundEffectTexture records came from (or are written in).
    pub layout: GroundEffectLayout,
    /// GroundEffectTexture records.
    pub textures: Vec<GroundEffectTexture>,
    /// GroundEffectDoodad records.
    pub doodads: Vec<GroundEffectDoodad>,
    texture_index: HashMap<u32, usize>,
    doodad_index: HashMap<u32, usize>,
}

/// The position of each of `ids` (the rows of `table`, in order); an id
/// that appears twice is an error naming the table.
fn index_by_id(
    table: &'static str,
    ids: impl ExactSizeIterator<Item = u32>,
) -> Result<HashMap<u32, usize>, EffectError> {
    let mut index = HashMap::with_capacity(ids.len());
    for (i, id) in ids.enumerate() {
        if index.insert(id, i).is_some() {
            return Err(EffectError::DuplicateId { table, id });
        }
    }
    Ok(index)
}

impl GroundEffects {
    /// Builds indexed tables; ids must be unique within each table.
    pub fn new(
        layout: GroundEffectLayout,
        textures: Vec<GroundEffectTexture>,
        doodads: Vec<GroundEffectDoodad>,
    ) -> Result<Self, EffectError> {
        let texture_index = index_by_id("GroundEffectTexture", textures.iter().map(|t| t.id))?;
        let doodad_index = index_by_id("GroundEffectDoodad", doodads.iter().map(|d| d.id))?;
        Ok(Self {
            layout,
            textures,
            doodads,
            texture_index,
            doodad_index,
        })
    }

    /// Decodes GroundEffectTexture rows (layout chosen by [`choose_layout`]
    /// with the doodad ids as the plausibility oracle) and indexes both
    /// tables.
    pub fn from_raw(
        raw: &RawTable<'_>,
        doodads: Vec<GroundEffectDoodad>,
    ) -> Result<Self, EffectError> {
        Self::from_raw_as(raw, doodads, None)
    }

    /// [`Self::from_raw`] in layout `prefer` (the client version's, see
    /// `crate::formats::version`) when the table has that layout's shape;
    /// otherwise, or without `prefer`, the layout [`choose_layout`] finds.
    pub fn from_raw_as(
        raw: &RawTable<'_>,
        doodads: Vec<GroundEffectDoodad>,
        prefer: Option<GroundEffectLayout>,
    ) -> Result<Self, EffectError> {
        let known: HashSet<u32> = doodads.iter().map(|d| d.id).collect();
        let shaped = raw.rows.len() == raw.record_count as usize * raw.field_count as usize
            && raw.record_size == raw.field_count * 4;
        let layout = match prefer.filter(|l| shaped && l.field_count() == raw.field_count) {
            Some(l) => l,
            None => choose_layout(raw, Some(&known))?,
        };
        let textures = (0..raw.record_count as usize)
            .map(|i| GroundEffectTexture::from_fields(layout, raw.row(i)))
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(layout, textures, doodads)
    }

    /// The GroundEffectTexture rows in `layout`, flattened (for writers).
    pub fn texture_rows(&self, layout: GroundEffectLayout) -> Vec<u32> {
        self.textures
            .iter()
            .flat_map(|t| t.to_fields(layout))
            .collect()
    }

    /// The GroundEffectTexture record with `id`.
    pub fn texture(&self, id: u32) -> Option<&GroundEffectTexture> {
        self.texture_index.get(&id).map(|&i| &self.textures[i])
    }

    /// The GroundEffectDoodad record with `id`.
    pub fn doodad(&self, id: u32) -> Option<&GroundEffectDoodad> {
        self.doodad_index.get(&id).map(|&i| &self.doodads[i])
    }

    /// Whether slot value `v` places nothing: 0xFFFFFFFF, or 0 when no
    /// doodad is keyed 0 (in 1.12.1 data 0 is ElwFlo01's internal id).
    pub fn slot_is_empty(&self, v: u32) -> bool {
        v == u32::MAX || (v == 0 && self.doodad(0).is_none())
    }

    /// The doodad slots that name a GroundEffectDoodad key the table lacks
    /// (`(effect id, slot value)`, table order): dangling references, which
    /// the client keeps drawing for and draws nothing from. Patched and
    /// repacked installs whose GroundEffectDoodad is older than their
    /// GroundEffectTexture have them.
    pub fn dangling_doodads(&self) -> Vec<(u32, u32)> {
        self.textures
            .iter()
            .flat_map(|t| t.doodads.iter().map(move |&d| (t.id, d)))
            .filter(|&(_, d)| !self.slot_is_empty(d) && self.doodad(d).is_none())
            .collect()
    }

    /// Resolves every effect's slots to indices in `model_paths` (matched
    /// case-insensitively after [`normalize_model_path`]). A slot naming a
    /// doodad the GroundEffectDoodad table lacks is dangling
    /// ([`ResolvedEffect::dangling`]: its draws happen, nothing is placed);
    /// a known doodad whose model is not in the list is an error.
    pub fn resolve(&self, model_paths: &[&str]) -> Result<ResolvedEffects, EffectError> {
        let by_path: HashMap<String, u16> = model_paths
            .iter()
            .enumerate()
            .map(|(i, p)| (normalize_model_path(p).to_ascii_lowercase(), i as u16))
            .collect();
        let mut effects = Vec::with_capacity(self.textures.len());
        for t in &self.textures {
            let mut slots = [None; 4];
            let mut dangling = [false; 4];
            for ((slot, dangles), &d) in slots.iter_mut().zip(&mut dangling).zip(&t.doodads) {
                if self.slot_is_empty(d) {
                    continue;
                }
                let Some(doodad) = self.doodad(d) else {
                    *dangles = true;
                    continue;
                };
                let path = doodad.model_path();
                *slot = Some(*by_path.get(&path.to_ascii_lowercase()).ok_or(
                    EffectError::UnknownModel {
                        doodad: d,
                        path: path.clone(),
                    },
                )?);
            }
            let weighted = self.layout == GroundEffectLayout::Wotlk335;
            let weights = std::array::from_fn(|i| match (slots[i], dangling[i]) {
                (Some(_), _) | (None, true) if weighted => t.weights[i],
                (Some(_), _) | (None, true) => 1,
                (None, false) => 0,
            });
            effects.push(ResolvedEffect {
                id: t.id,
                density: t.effective_density(),
                stored_density: t.density,
                doodads: t.doodads,
                slots,
                weights,
                stored_weights: t.weights,
                dangling,
            });
        }
        let index = effects
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id, i as u32))
            .collect();
        Ok(ResolvedEffects { effects, index })
    }
}

/// A ground effect with its slots resolved to detail-model indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolvedEffect {
    /// GroundEffectTexture id.
    pub id: u32,
    /// Effective density (already defaulted and clamped; per-cell policy).
    pub density: u32,
    /// Density as stored (the client routine: see [`Self::client_density`]).
    pub stored_density: u32,
    /// The slots' GroundEffectDoodad keys as stored.
    pub doodads: [u32; 4],
    /// Model index per slot; `None` for an empty or dangling slot.
    pub slots: [Option<u16>; 4],
    /// Selection weight per slot (0 for empty slots; a dangling slot keeps
    /// its weight, so that the draws that pick it still happen).
    pub weights: [u32; 4],
    /// The weights as the table holds them, empty slots included (3.3.5a;
    /// 1 per non-empty slot in the unweighted layouts): what the 3.3.5
    /// routine deals its bag by.
    pub stored_weights: [u32; 4],
    /// Slots that name a GroundEffectDoodad key the table lacks: as in the
    /// client, the routine still makes the draws of a doodad there, and
    /// draws nothing.
    pub dangling: [bool; 4],
}

impl ResolvedEffect {
    /// Sum of the slot weights.
    pub fn total_weight(&self) -> u32 {
        self.weights.iter().sum()
    }

    /// Doodads per picked cell in the client routine: the stored density,
    /// 0 meaning 8, with no upper cap.
    pub fn client_density(&self) -> u32 {
        match self.stored_density {
            0 => DEFAULT_DENSITY,
            d => d,
        }
    }

    /// Slot chosen by weight for a uniform `r` in `[0, total_weight)`;
    /// `None` when every weight is zero.
    pub fn pick_weighted_slot(&self, r: u32) -> Option<usize> {
        let mut acc = 0;
        for (i, w) in self.weights.iter().enumerate() {
            acc += w;
            if r < acc {
                return Some(i);
            }
        }
        None
    }

    /// Weighted slot choice for a uniform `r` in `[0, total_weight)`;
    /// `None` when every weight is zero.
    pub fn pick_weighted(&self, r: u32) -> Option<u16> {
        let mut acc = 0;
        for (w, s) in self.weights.iter().zip(self.slots) {
            acc += w;
            if r < acc {
                return s;
            }
        }
        None
    }
}

/// Ground effects ready for placement: O(1) id lookup of resolved effects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResolvedEffects {
    /// The effects, in table order.
    pub effects: Vec<ResolvedEffect>,
    index: HashMap<u32, u32>,
}

impl ResolvedEffects {
    /// The resolved effect with GroundEffectTexture id `id`.
    pub fn get(&self, id: u32) -> Option<&ResolvedEffect> {
        self.index.get(&id).map(|&i| &self.effects[i as usize])
    }
}

/// Errors of the ground-effect tables.
#[derive(Debug, thiserror::Error)]
pub enum EffectError {
    /// Header and data disagree.
    #[error("GroundEffectTexture table has a bad shape: {reason}")]
    BadShape {
        /// What disagrees.
        reason: String,
    },
    /// No known layout has this field count / record size.
    #[error(
        "unknown GroundEffectTexture layout: {field_count} fields, {record_size}-byte records"
    )]
    UnknownLayout {
        /// Field count from the header.
        field_count: u32,
        /// Record size from the header.
        record_size: u32,
    },
    /// Several layouts fit the data.
    #[error("ambiguous GroundEffectTexture layout: the data fits {candidates:?}")]
    Ambiguous {
        /// The layouts that fit.
        candidates: Vec<GroundEffectLayout>,
    },
    /// The shape fits but the values do not.
    #[error(
        "GroundEffectTexture data is implausible for every layout of its shape ({candidates:?})"
    )]
    Implausible {
        /// The layouts with the right shape.
        candidates: Vec<GroundEffectLayout>,
    },
    /// An id appears twice.
    #[error("{table} id {id} appears twice")]
    DuplicateId {
        /// Which table.
        table: &'static str,
        /// The id.
        id: u32,
    },
    /// A slot names a doodad id the GroundEffectDoodad table lacks.
    #[error("ground effect {effect} names unknown GroundEffectDoodad {doodad}")]
    UnknownDoodad {
        /// The effect.
        effect: u32,
        /// The missing doodad id.
        doodad: u32,
    },
    /// A doodad's model is not among the loaded detail models.
    #[error("GroundEffectDoodad {doodad} model {path} is not loaded")]
    UnknownModel {
        /// The doodad id.
        doodad: u32,
        /// Its normalised path.
        path: String,
    },
}

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod tests;
