//! The run engine: workers that play the schedule's jobs (`crate::schedule`) on a
//! rayon pool, a reorder buffer that hands records to observers in game order, and a
//! clean stop. It knows the [`Task`](crate::task::Task) trait, never a game, and it
//! writes nothing itself: observers (the results writer, progress, the aggregate, the
//! SPRT monitor) receive records and can only answer "stop".

mod observer;
mod run;
pub mod stop;

pub use crate::schedule::{Schedule, Shard};
pub use observer::{Flow, Observer, SprtMonitor, StartupGuard, started_in};
pub use run::{Execution, Games, Outputs, RowEncoder, RowSink, Rows, RunEnd, Span, play_all};
