//! Runs of consecutive indices: a tile's pool pages or slots written or
//! copied with one command per run instead of one per unit.

use std::ops::Range;

/// Index ranges of `units` whose values are consecutive (`units[i + 1] ==
/// units[i] + 1` inside a range), in order.
pub(crate) fn consecutive_runs(units: &[u32]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= units.len() {
            return None;
        }
        let mut end = start + 1;
        while end < units.len() && units[end] == units[end - 1] + 1 {
            end += 1;
        }
        let run = start..end;
        start = end;
        Some(run)
    })
}

#[cfg(test)]
mod tests {
    use super::consecutive_runs;

    #[test]
    fn runs_split_where_units_are_not_consecutive() {
        let runs = |p: &[u32]| consecutive_runs(p).collect::<Vec<_>>();
        assert_eq!(runs(&[]), vec![]);
        assert_eq!(runs(&[7]), vec![0..1]);
        assert_eq!(runs(&[3, 4, 5, 9, 10, 2]), vec![0..3, 3..5, 5..6]);
    }
}
