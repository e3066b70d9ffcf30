//! Local processes.
