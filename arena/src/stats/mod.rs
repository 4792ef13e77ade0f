//! Statistics: being written.
