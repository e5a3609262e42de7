//! `occlusion=auto`: a Hi-Z occlusion test run only while it pays for
//! itself (grass `gpu-cull`, terrain `clipmap`). The test costs a depth
//! pyramid and look-ups every frame (the clipmap: a second cull and draw
//! pass too); where the terrain hides next to nothing (an open walk) that is
//! pure cost. The gate reads the technique's lagged counts (items kept,
//! items occluded) of frames in which the test ran: when it hid less than a
//! share of the items it tested ([`AUTO_MIN_HIDDEN`] for grass clumps, whose
//! test is a look-up each; the technique chooses), the test is left out for
//! the next [`AUTO_REST`] frames, then runs again until a readback of such a
//! frame says whether to rest again.
//!
//! Leaving the test out never changes the picture (it only removes what the
//! terrain hides), so `auto` draws what `off` and `on` draw.

/// Fraction of tested items the test must hide to keep running.
pub const AUTO_MIN_HIDDEN: f64 = 0.02;

/// Frames the test rests after a readback showed it hid too little.
pub const AUTO_REST: u64 = 60;

/// The adaptive gate (see the module docs).
#[derive(Debug, Clone)]
pub struct OcclusionGate {
    /// Share of the tested items the test must hide to keep running.
    min_hidden: f64,
    /// Frames (of the technique's counter) in which the test ran, newest
    /// last; only the last few are kept (readbacks lag a few frames).
    ran: std::collections::VecDeque<u64>,
    /// The newest readback frame already judged.
    judged: Option<u64>,
    /// The test rests until this frame.
    rest_until: u64,
    /// Frames decided so far, and how many ran the test.
    pub frames: u64,
    /// Frames in which the test ran.
    pub ran_frames: u64,
}

impl Default for OcclusionGate {
    /// A gate with the grass threshold, [`AUTO_MIN_HIDDEN`].
    fn default() -> Self {
        Self::with_min_hidden(AUTO_MIN_HIDDEN)
    }
}

impl OcclusionGate {
    /// A gate that rests the test while it hides less than `min_hidden`
    /// (a share, 0..1) of the items it tests.
    pub fn with_min_hidden(min_hidden: f64) -> Self {
        OcclusionGate {
            min_hidden,
            ran: std::collections::VecDeque::new(),
            judged: None,
            rest_until: 0,
            frames: 0,
            ran_frames: 0,
        }
    }

    /// Whether frame `frame` runs the test, given the newest readback
    /// (`(frame it was copied in, kept, occluded)`), if any.
    pub fn decide(&mut self, frame: u64, latest: Option<(u64, u32, u32)>) -> bool {
        if let Some((f, kept, occluded)) = latest {
            if self.judged.is_none_or(|j| j < f) && self.ran.contains(&f) {
                self.judged = Some(f);
                let tested = f64::from(kept) + f64::from(occluded);
                if tested > 0.0 && f64::from(occluded) < self.min_hidden * tested {
                    self.rest_until = frame + AUTO_REST;
                }
            }
        }
        let run = frame >= self.rest_until;
        self.frames += 1;
        if run {
            self.ran_frames += 1;
            self.ran.push_back(frame);
            while self.ran.len() > 32 {
                self.ran.pop_front();
            }
        }
        run
    }

    /// Starts the frame counts ([`Self::frames`], [`Self::ran_frames`])
    /// again for a new run; what the gate has learnt (rest, judged frames)
    /// stays.
    pub fn restart_counts(&mut self) {
        self.frames = 0;
        self.ran_frames = 0;
    }

    /// Frame `frame` ran but its counts say nothing about the test (a
    /// pyramid was built, but there was none of the frame before to test
    /// against): its readback is not judged.
    pub fn unjudged(&mut self, frame: u64) {
        self.ran.retain(|&f| f != frame);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives the gate for `frames` frames with a readback that arrives
    /// `lag` frames after each copy (copies every 4 frames), the test
    /// hiding `hidden` of 1000 clumps when it runs.
    fn run(frames: u64, lag: u64, hidden: impl Fn(u64) -> u32) -> (OcclusionGate, Vec<bool>) {
        let mut gate = OcclusionGate::default();
        let mut ran = Vec::new();
        for frame in 0..frames {
            let latest = (frame >= lag).then(|| (frame - lag) / 4 * 4).map(|f| {
                let occluded = if ran.get(f as usize).copied().unwrap_or(false) {
                    hidden(f)
                } else {
                    0
                };
                (f, 1000 - occluded, occluded)
            });
            ran.push(gate.decide(frame, latest));
        }
        (gate, ran)
    }

    #[test]
    fn the_threshold_is_the_gates() {
        // 10 % hidden: enough for the grass threshold, not for 20 %.
        let mut grass = OcclusionGate::default();
        let mut clipmap = OcclusionGate::with_min_hidden(0.2);
        for g in [&mut grass, &mut clipmap] {
            assert!(g.decide(0, None));
        }
        assert!(grass.decide(1, Some((0, 900, 100))));
        assert!(!clipmap.decide(1, Some((0, 900, 100))));
    }

    #[test]
    fn unjudged_frames_do_not_send_the_test_to_rest() {
        let mut gate = OcclusionGate::default();
        assert!(gate.decide(0, None));
        gate.unjudged(0);
        // Frame 0's readback (nothing hidden: it had no pyramid to test
        // against) is not judged: the test keeps running.
        assert!(gate.decide(1, Some((0, 1000, 0))));
        // A judged frame that hid nothing sends it to rest.
        assert!(!gate.decide(2, Some((1, 1000, 0))));
    }

    #[test]
    fn the_test_keeps_running_while_it_hides_clumps() {
        let (gate, ran) = run(400, 6, |_| 800);
        assert!(
            ran.iter().all(|&r| r),
            "hiding 80 % of the clumps, it never rests"
        );
        assert_eq!(gate.ran_frames, 400);
    }

    #[test]
    fn the_test_rests_where_nothing_is_hidden_and_probes_again() {
        let (gate, ran) = run(400, 6, |_| 3);
        let share = gate.ran_frames as f64 / gate.frames as f64;
        assert!(share < 0.25, "ran in {share} of the frames");
        assert!(
            ran[..6].iter().all(|&r| r),
            "it runs until the first readback"
        );
        // After a rest it runs again (a probe) before resting once more.
        let first_rest = ran.iter().position(|&r| !r).expect("rests");
        assert!(ran[first_rest..first_rest + AUTO_REST as usize - 6]
            .iter()
            .all(|&r| !r));
        assert!(
            ran[first_rest + AUTO_REST as usize..].iter().any(|&r| r),
            "probes again"
        );
    }

    #[test]
    fn readbacks_of_frames_without_the_test_are_not_judged() {
        // The test hides much only from frame 200 on: once a probe sees it,
        // the test stays on.
        let (_, ran) = run(600, 6, |f| if f >= 200 { 600 } else { 0 });
        assert!(
            ran[..200].iter().any(|&r| !r),
            "rests while nothing is hidden"
        );
        let tail = &ran[200 + AUTO_REST as usize + 20..];
        assert!(
            tail.iter().all(|&r| r),
            "back on for good once it hides clumps"
        );
    }
}
