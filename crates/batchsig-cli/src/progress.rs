//! Progress on stderr: an `indicatif` bar that appears only once a run has taken more than
//! a second and only when stderr is a terminal, and the closing line (items, seconds,
//! items/s), always printed.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// After this long a run counts as long and shows its bar.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// What the bar counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Files, out of a known count.
    Files,
    /// Bytes of the lines file, out of its size; the message says how many items.
    Bytes,
}

#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    items: u64,
}

impl Progress {
    pub fn new(total: u64, unit: Unit) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        let template = match unit {
            Unit::Files => "{bar:40} {pos}/{len} files  {per_sec}  eta {eta}",
            Unit::Bytes => "{bar:40} {bytes}/{total_bytes}  {msg}  eta {eta}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Self {
            bar,
            start: Instant::now(),
            shown: false,
            items: 0,
        }
    }

    /// `items` more done; the bar stands at `position`.
    pub fn advance(&mut self, items: u64, position: u64) {
        self.items += items;
        if !self.shown && self.start.elapsed() >= SHOW_AFTER && std::io::stderr().is_terminal() {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_position(position);
        self.bar.set_message(format!("{} items", self.items));
    }

    /// Clears the bar and prints `"{what} {n} items in {s} s ({rate} items/s){extra}"`.
    pub fn finish(self, what: &str, extra: &str) {
        self.bar.finish_and_clear();
        let secs = self.start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            self.items as f64 / secs
        } else {
            0.0
        };
        let plural = if self.items == 1 { "" } else { "s" };
        eprintln!(
            "{what} {} item{plural} in {secs:.3} s ({rate:.1} items/s){extra}",
            self.items
        );
    }
}
