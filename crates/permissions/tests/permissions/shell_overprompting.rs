//! Everyday read-only commands that must not ask in `ask` mode (Low): the principle
//! that Low is proven must be met by modelling them, not by asking.

use warden_permissions::Risk::{self, Critical, High, Low, Medium};

use super::shell_support::check_table;

const MUST_ALLOW: &[(&str, Risk)] = &[
    // awk where `>` compares or `|` sits inside a regular expression or a string.
    ("awk '$3 > 100 { print $1 }' data.txt", Low),
    ("awk -F: '$1 ~ /a|b/ { print }' data.txt", Low),
    ("awk '{ if ($2 >= 5) print $0 }' data.txt", Low),
    ("awk '/foo|bar/' data.txt", Low),
    ("awk '{ print \"a|b>c\" }' data.txt", Low),
    (
        "awk 'NR > 1 && $2 > 0 { n++ } END { print n }' data.txt",
        Low,
    ),
    ("awk '{ print ($1 > $2) }' data.txt", Low),
    // find | xargs with a program that only counts or lists.
    ("find . -name '*.rs' | xargs wc -l", Low),
    ("find src -type f | xargs wc -l", Low),
    ("find . -name '*.py' -print0 | xargs -0 wc -l", Low),
    // for loops over literal words or a workspace glob, running readers.
    ("for f in src/*.rs; do wc -l \"$f\"; done", Low),
    ("for f in a b c; do echo $f; done", Low),
    ("for f in README.md Cargo.toml; do head -n 3 $f; done", Low),
    ("for d in src docs; do ls $d; done", Low),
    // Tools that only print what they know.
    ("git cherry", Low),
    ("git cherry -v main", Low),
    ("rustc --print sysroot", Low),
    ("rustc --print target-list", Low),
    ("rustc --print=cfg", Low),
    ("rustc -vV", Low),
    ("rustc --version --verbose", Low),
    ("cargo --list", Low),
    ("cargo -vV", Low),
    ("npm config get registry", Low),
    ("rustup show", Low),
    ("rustup show active-toolchain", Low),
    ("head -c 16 /dev/urandom | xxd", Low),
    ("head -c 32 /dev/urandom | base64", Low),
    ("unzip -l archive.zip", Low),
    ("unzip -v archive.zip", Low),
    ("shellcheck script.sh", Low),
    ("shellcheck -x -s bash scripts/build.sh", Low),
    // Found by the everyday corpus (cheat's cheatsheets): socket and open-file
    // listings, a pager opened at a line, and the kernel's public reports.
    ("ss -tlp", Low),
    (
        "ss -t state established '( dport = :ssh or sport = :ssh )'",
        Low,
    ),
    ("netstat -r", Low),
    ("lsof -i TCP:80", Low),
    ("more +5 README.md", Low),
    ("less +120 src/main.rs", Low),
    ("cat /proc/cpuinfo", Low),
    ("cat /proc/meminfo", Low),
    ("git show :/cool", Low),
];

/// Everyday idioms the principle must leave Low.
const IDIOMS: &[(&str, Risk)] = &[
    (
        "while read -r line; do echo \"$line\"; done < README.md",
        Low,
    ),
    ("for i in 1 2 3; do echo $i; done", Low),
    ("[ -f Cargo.toml ] && cat Cargo.toml", Low),
    ("test -n \"$CI\" && echo ci", Low),
    ("echo \"$(date)\"", Low),
    ("cat src/main.rs | awk '{print $1}' | sort | uniq -c", Low),
    ("grep -rn TODO src | wc -l", Low),
    ("set -euo pipefail; ls src", Low),
    ("cd src && ls -la", Low),
    ("n=5; head -n $n README.md", Low),
    ("ls src | while read -r f; do echo \"$f\"; done", Low),
];

/// Their neighbours that do something else stay asked.
const NEIGHBOURS: &[(&str, Risk)] = &[
    ("awk '{ print > \"out\" }' data.txt", High),
    ("awk '{ print | \"sh\" }' data.txt", High),
    ("awk 'BEGIN { system(\"ls\") }'", High),
    ("awk '{ \"date\" | getline d }' data.txt", High),
    ("find . | xargs cat", Medium),
    ("find . -name '*.rs' | xargs rm", High),
    ("find . -exec ls {} \\; | xargs wc -l", Medium),
    ("find . | sh", High),
    ("for f in $(cat list); do wc -l $f; done", Medium),
    ("for f in ~/.ssh/*; do cat $f; done", High),
    ("rustc --print cfg=out.txt", Medium),
    ("rustc x.rs", Medium),
    ("npm config get //registry.npmjs.org/:_authToken", Medium),
    ("npm config set registry http://x", Medium),
    ("rustup show +nightly", Medium),
    ("unzip archive.zip", Medium),
    ("unzip -l archive.zip -d ~", Medium),
    ("ss -K dst 10.0.0.1", Medium),
    ("ss --kill state established", Medium),
    ("ss -D ~/.bashrc", Critical),
    ("less +!sh README.md", High),
    ("more '+/x' README.md", High),
    ("cat /proc/self/environ", High),
    ("cat /proc/1/cmdline", Medium),
    ("find . | xargs rm", High),
    ("git show HEAD:.env", Medium),
    ("git show :.env", Medium),
];

#[test]
fn everyday_read_only_commands_are_low() {
    check_table(MUST_ALLOW, false);
    check_table(IDIOMS, false);
}

#[test]
fn their_neighbours_that_run_or_write_are_still_asked() {
    check_table(NEIGHBOURS, true);
}
