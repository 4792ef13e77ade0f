//! Reports: the aggregate built from records, the report it yields, and the exporters
//! that write it (CSV, JSON, console, HTML), the game viewer's replays, plus the
//! progress bars.

pub mod aggregate;
pub mod export;
pub mod forfeits;
pub mod html;
pub mod progress;
pub mod summary;
pub mod svg;
pub mod viewer;

pub use aggregate::Tally;
pub use export::{ConsoleTable, Exporter, RunFacts};
pub use forfeits::Forfeits;
pub use progress::Progress;
pub use summary::Report;
