//! Colour and emphasis for the interactive terminal, or none at all: with `NO_COLOR` set
//! (to anything but the empty string) the screen gets plain text and no escape codes.

use nu_ansi_term::{Color, Style as Ansi};

/// How text is styled on the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Whether escape codes may be written: colours, bold, and redrawing a line in place.
    pub ansi: bool,
}

impl Style {
    /// Escape codes on a terminal unless `NO_COLOR` asks for none.
    pub fn from_env() -> Style {
        Style {
            ansi: std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty()),
        }
    }

    pub const PLAIN: Style = Style { ansi: false };

    fn paint(self, style: Ansi, text: &str) -> String {
        if self.ansi && !text.is_empty() {
            style.paint(text).to_string()
        } else {
            text.to_owned()
        }
    }

    pub fn bold(self, text: &str) -> String {
        self.paint(Ansi::new().bold(), text)
    }
    pub fn dim(self, text: &str) -> String {
        self.paint(Ansi::new().dimmed(), text)
    }
    pub fn italic(self, text: &str) -> String {
        self.paint(Ansi::new().italic(), text)
    }
    pub fn underline(self, text: &str) -> String {
        self.paint(Ansi::new().underline(), text)
    }
    pub fn reverse(self, text: &str) -> String {
        self.paint(Ansi::new().reverse(), text)
    }
    pub fn red(self, text: &str) -> String {
        self.paint(Color::Red.normal(), text)
    }
    pub fn green(self, text: &str) -> String {
        self.paint(Color::Green.normal(), text)
    }
    pub fn yellow(self, text: &str) -> String {
        self.paint(Color::Yellow.normal(), text)
    }
    pub fn cyan(self, text: &str) -> String {
        self.paint(Color::Cyan.normal(), text)
    }
    pub fn bold_red(self, text: &str) -> String {
        self.paint(Color::Red.bold(), text)
    }

    /// Moves the cursor to the start of the line `up` lines above and clears everything
    /// from there down; nothing without escape codes (the old lines then stay).
    pub fn erase_up(self, up: usize) -> String {
        if !self.ansi {
            return String::new();
        }
        let mut out = String::new();
        if up > 0 {
            out.push_str(&format!("\x1b[{up}A"));
        }
        out.push_str("\r\x1b[J");
        out
    }
}

/// The terminal's width in columns (80 when it cannot be read).
pub fn terminal_width() -> usize {
    use std::os::fd::AsFd;
    rustix::termios::tcgetwinsize(std::io::stdout().as_fd())
        .ok()
        .map(|size| usize::from(size.ws_col))
        .filter(|cols| *cols > 0)
        .unwrap_or(80)
}
