//! Output capture.
