//! CPU culling of MCNKs for `static-chunks`: frustum (conservative plane test
//! of each MCNK's box) plus draw distance (nearest point of the box), done
//! hierarchically: an ADT tile's box that is wholly outside rejects its 256
//! MCNKs at once and one wholly inside accepts them at once; only tiles that
//! straddle a boundary test their MCNKs one by one.
//!
//! The result is exactly [`chunk_visible`] applied to every MCNK (tested
//! against that brute-force reference).
//!
//! Groups can be replaced and removed one at a time
//! ([`ChunkCuller::set_group`], [`ChunkCuller::remove_group`]), so a
//! streaming technique updates the culler per tile; the output order is
//! group key order, then slot order inside a group, whatever order the
//! groups arrived in.

use std::collections::BTreeMap;

use glam::Vec3;
use sward_engine::Frustum;

use super::mesh::Aabb;

/// How a box relates to a culling volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    Outside,
    Inside,
    Straddles,
}

/// Distance from `p` to the nearest point of `b` (0 inside).
pub fn nearest_distance(p: Vec3, b: &Aabb) -> f32 {
    (b.min - p).max(p - b.max).max(Vec3::ZERO).length()
}

/// Distance from `p` to the farthest corner of `b`.
pub fn farthest_distance(p: Vec3, b: &Aabb) -> f32 {
    (p - b.min).abs().max((b.max - p).abs()).length()
}

/// The per-MCNK test (the reference): the box touches the frustum (plane
/// test, conservative near corners) and its nearest point is within
/// `max_distance` of `eye`.
pub fn chunk_visible(frustum: &Frustum, eye: Vec3, max_distance: f32, b: &Aabb) -> bool {
    frustum.aabb_visible(b.min, b.max) && nearest_distance(eye, b) <= max_distance
}

fn frustum_relation(frustum: &Frustum, b: &Aabb) -> Relation {
    let mut inside = true;
    for p in &frustum.planes {
        let n = p.truncate();
        let far = Vec3::select(n.cmpge(Vec3::ZERO), b.max, b.min);
        if n.dot(far) + p.w < 0.0 {
            return Relation::Outside;
        }
        let near = Vec3::select(n.cmpge(Vec3::ZERO), b.min, b.max);
        inside &= n.dot(near) + p.w >= 0.0;
    }
    if inside {
        Relation::Inside
    } else {
        Relation::Straddles
    }
}

fn distance_relation(eye: Vec3, max_distance: f32, b: &Aabb) -> Relation {
    if nearest_distance(eye, b) > max_distance {
        Relation::Outside
    } else if farthest_distance(eye, b) <= max_distance {
        Relation::Inside
    } else {
        Relation::Straddles
    }
}

/// A group of MCNK slots (one ADT tile) with its bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct CullGroup {
    /// Union of the MCNK boxes.
    pub bounds: Aabb,
    /// The MCNK slots of the group, increasing.
    pub slots: Vec<u32>,
}

/// MCNK boxes grouped by ADT tile.
#[derive(Debug, Clone, Default)]
pub struct ChunkCuller {
    /// Box per slot ([`Aabb::EMPTY`] for slots in no group).
    bounds: Vec<Aabb>,
    /// Groups by key (the output order).
    groups: BTreeMap<u32, CullGroup>,
}

impl ChunkCuller {
    /// A culler over `bounds` (one per MCNK slot) where `group_of[i]` is the
    /// group key of slot `i`.
    pub fn new(bounds: Vec<Aabb>, group_of: &[u32]) -> Self {
        let mut members: BTreeMap<u32, Vec<(u32, Aabb)>> = BTreeMap::new();
        for (i, (b, &key)) in bounds.iter().zip(group_of).enumerate() {
            members.entry(key).or_default().push((i as u32, *b));
        }
        let mut this = ChunkCuller::default();
        for (key, m) in members {
            this.set_group(key, m);
        }
        this.bounds.resize(bounds.len(), Aabb::EMPTY);
        this
    }

    /// Replaces (or adds) group `key` with `members` (slot and box each).
    /// A slot must belong to one group at a time.
    pub fn set_group(&mut self, key: u32, members: impl IntoIterator<Item = (u32, Aabb)>) {
        self.remove_group(key);
        let mut group = CullGroup {
            bounds: Aabb::EMPTY,
            slots: Vec::new(),
        };
        for (slot, b) in members {
            let s = slot as usize;
            if s >= self.bounds.len() {
                self.bounds.resize(s + 1, Aabb::EMPTY);
            }
            self.bounds[s] = b;
            group.bounds = group.bounds.union(b);
            group.slots.push(slot);
        }
        group.slots.sort_unstable();
        if !group.slots.is_empty() {
            self.groups.insert(key, group);
        }
    }

    /// Removes group `key`; its slots' boxes become [`Aabb::EMPTY`].
    /// Returns the slots it had.
    pub fn remove_group(&mut self, key: u32) -> Vec<u32> {
        let Some(group) = self.groups.remove(&key) else {
            return Vec::new();
        };
        for &s in &group.slots {
            self.bounds[s as usize] = Aabb::EMPTY;
        }
        group.slots
    }

    /// Number of MCNK slots (live or not).
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Whether there are no MCNK slots.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// The groups (tiles) in key order.
    pub fn groups(&self) -> impl Iterator<Item = &CullGroup> + '_ {
        self.groups.values()
    }

    /// Box of MCNK slot `slot`.
    pub fn bounds(&self, slot: usize) -> Option<&Aabb> {
        self.bounds.get(slot)
    }

    /// Clears `out` and fills it with the visible slots: groups in key
    /// order, slots increasing inside each.
    pub fn cull(&self, frustum: &Frustum, eye: Vec3, max_distance: f32, out: &mut Vec<u32>) {
        out.clear();
        for g in self.groups.values() {
            let f = frustum_relation(frustum, &g.bounds);
            let d = distance_relation(eye, max_distance, &g.bounds);
            match (f, d) {
                (Relation::Outside, _) | (_, Relation::Outside) => {}
                (Relation::Inside, Relation::Inside) => out.extend_from_slice(&g.slots),
                _ => out.extend(g.slots.iter().copied().filter(|&s| {
                    chunk_visible(frustum, eye, max_distance, &self.bounds[s as usize])
                })),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::mesh::expand_mcnk;
    use crate::terrain::testutil::cliff_world;
    use sward_engine::Camera;
    use sward_scenes::rng::Rng32;

    fn culler() -> (ChunkCuller, Vec<Vec<Vec3>>) {
        let world = cliff_world();
        let mut bounds = Vec::new();
        let mut keys = Vec::new();
        let mut points = Vec::new();
        for (chunk, m) in world.mcnks() {
            let mesh = expand_mcnk(chunk, m).expect("valid");
            bounds.push(mesh.bounds);
            // Two groups per tile so the test sees more than one group.
            keys.push(chunk.y / 8);
            points.push(
                mesh.vertices
                    .iter()
                    .map(|v| Vec3::from(v.position))
                    .collect(),
            );
        }
        (ChunkCuller::new(bounds, &keys), points)
    }

    #[test]
    fn hierarchical_cull_equals_the_per_chunk_reference_and_keeps_what_is_seen() {
        let (culler, points) = culler();
        assert_eq!(culler.groups().count(), 2);
        let all = culler.groups().fold(Aabb::EMPTY, |a, g| a.union(g.bounds));
        let mut rng = Rng32::new(7);
        let mut out = Vec::new();
        let (mut kept, mut rejected, mut straddling_cases) = (0, 0, 0);
        for case in 0..200 {
            let t = Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32());
            let eye = all.min + (all.max - all.min) * t + Vec3::Z * (5.0 + 200.0 * rng.next_f32());
            let camera = Camera {
                eye,
                yaw_deg: rng.next_f32() * 360.0,
                pitch_deg: -80.0 * rng.next_f32(),
                fov_y_deg: 40.0 + 40.0 * rng.next_f32(),
                near: 0.5,
                far: 2000.0,
            };
            let frustum = camera.frustum(1.6);
            let max_distance = if case % 3 == 0 { 150.0 } else { 1000.0 };
            culler.cull(&frustum, eye, max_distance, &mut out);
            let reference: Vec<u32> = (0..culler.len() as u32)
                .filter(|&s| chunk_visible(&frustum, eye, max_distance, &culler.bounds[s as usize]))
                .collect();
            assert_eq!(out, reference, "case {case}");
            if !out.is_empty() && out.len() < culler.len() {
                straddling_cases += 1;
            }
            // No false negatives: a chunk with a vertex strictly inside the
            // clip volume and within the distance is kept.
            let vp = camera.view_proj(1.6);
            for (slot, pts) in points.iter().enumerate() {
                let seen = pts.iter().any(|p| {
                    let c = vp * p.extend(1.0);
                    c.w > 0.0
                        && c.x.abs() < c.w * 0.999
                        && c.y.abs() < c.w * 0.999
                        && c.z > 0.0
                        && c.z < c.w
                        && p.distance(eye) < max_distance * 0.999
                });
                let keep = out.binary_search(&(slot as u32)).is_ok();
                assert!(
                    !seen || keep,
                    "case {case}: slot {slot} is visible but culled"
                );
                if keep {
                    kept += 1;
                } else {
                    rejected += 1;
                }
            }
        }
        assert!(
            kept > 1000 && rejected > 1000,
            "kept {kept} rejected {rejected}"
        );
        assert!(straddling_cases > 50, "{straddling_cases}");
    }

    #[test]
    fn groups_replaced_and_removed_cull_like_a_fresh_culler() {
        let (fresh, _) = culler();
        let groups: Vec<CullGroup> = fresh.groups().cloned().collect();
        // The same boxes under other slots: group 1 first at slots 0.., then
        // group 0 after it; a removed and re-added group leaves no trace.
        let mut moved = ChunkCuller::default();
        let n = groups[1].slots.len() as u32;
        let members = |g: &CullGroup, base: u32| -> Vec<(u32, Aabb)> {
            g.slots
                .iter()
                .enumerate()
                .map(|(i, &s)| (base + i as u32, *fresh.bounds(s as usize).expect("box")))
                .collect()
        };
        moved.set_group(1, members(&groups[1], 0));
        moved.set_group(0, members(&groups[0], 1000));
        assert_eq!(moved.remove_group(0).len(), groups[0].slots.len());
        assert!(moved.remove_group(0).is_empty());
        assert!(moved.bounds(1000).is_some_and(|b| *b == Aabb::EMPTY));
        moved.set_group(0, members(&groups[0], n));
        assert_eq!(moved.groups().count(), 2);
        // Slot s of the fresh culler is slot s + n (group 0) or s - m
        // (group 1) of the moved one.
        let m = groups[0].slots.len() as u32;
        let map = |s: u32| if s < m { s + n } else { s - m };
        let all = fresh.groups().fold(Aabb::EMPTY, |a, g| a.union(g.bounds));
        let mut rng = Rng32::new(11);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..50 {
            let t = Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32());
            let eye = all.min + (all.max - all.min) * t + Vec3::Z * 50.0;
            let camera = Camera {
                eye,
                yaw_deg: rng.next_f32() * 360.0,
                pitch_deg: -60.0 * rng.next_f32(),
                ..Camera::default()
            };
            let frustum = camera.frustum(1.6);
            fresh.cull(&frustum, eye, 500.0, &mut a);
            moved.cull(&frustum, eye, 500.0, &mut b);
            // Output order: group key order, slots increasing in a group.
            let want: Vec<u32> = a.iter().map(|&s| map(s)).collect();
            assert_eq!(b, want);
        }
    }

    #[test]
    fn distance_helpers_bound_the_box() {
        let b = Aabb {
            min: Vec3::new(0.0, 0.0, 0.0),
            max: Vec3::new(2.0, 4.0, 1.0),
        };
        assert_eq!(nearest_distance(Vec3::new(1.0, 1.0, 0.5), &b), 0.0);
        assert!((nearest_distance(Vec3::new(5.0, 1.0, 0.5), &b) - 3.0).abs() < 1e-6);
        assert!((farthest_distance(Vec3::ZERO, &b) - 21f32.sqrt()).abs() < 1e-6);
    }
}
