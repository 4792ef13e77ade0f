//! The resolved plan: the task a run plays, its cases parsed once, its schedule, and its
//! setup (agents, cases, seed, SPRT, limits). Everything that determines a run's
//! results, fully explicit. The config resolves into it (`Plan::resolve`, through the
//! task registry); everything downstream (the engine, the run directory, the reports)
//! reads it and never looks a task up again.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

pub use crate::schedule::Schedule;
pub use crate::setup::{Limits, PlanAgent, Setup, SprtConfig};
use crate::task::{Prepared, Task};

/// A resolved plan. Its setup's fields read as the plan's own (`plan.seed`,
/// `plan.matchups()`): the plan is its task and schedule around them.
#[derive(Clone)]
pub struct Plan {
    /// The task, from the registry: its name, columns, tools.
    pub task: &'static dyn Task,
    /// The task with this plan's cases parsed: it plays and replays the jobs.
    pub prepared: Arc<dyn Prepared>,
    /// Game `i` of the run by arithmetic: built once, from the setup.
    pub schedule: Schedule,
    pub setup: Setup,
}

impl Plan {
    /// A plan of `task` for `setup`, whose cases `prepared` parsed (and named
    /// canonically).
    pub fn new(task: &'static dyn Task, prepared: Box<dyn Prepared>, setup: Setup) -> Plan {
        Plan {
            task,
            prepared: Arc::from(prepared),
            schedule: Schedule::of(&setup),
            setup,
        }
    }
}

impl Deref for Plan {
    type Target = Setup;
    fn deref(&self) -> &Setup {
        &self.setup
    }
}

/// Two plans are the same experiment when their task and setup are (the schedule and
/// the parsed cases follow from those).
impl PartialEq for Plan {
    fn eq(&self, other: &Plan) -> bool {
        self.task.name() == other.task.name() && self.setup == other.setup
    }
}

impl fmt::Debug for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("task", &self.task.name())
            .field("schedule", &self.schedule)
            .field("setup", &self.setup)
            .finish()
    }
}
