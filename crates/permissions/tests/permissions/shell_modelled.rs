//! Low is proven, not presumed: a command is Low only when every construct on its
//! line is one the analyser fully models (`shell/walk/modelled.rs`). One table per
//! class of construct the analyser used to take for inert text: each must-not-allow
//! row has the least risk it must get (Medium or more is asked in `ask`), and each
//! guard row is an everyday command that must stay Low.
//!
//! Every "this runs code" row was checked with a harmless payload (a `touch` of a
//! marker in a scratch folder, as an unprivileged user with a scratch `HOME`).

use warden_permissions::Risk::{self, Critical, Low, Medium};

use super::shell_support::check_table;

/// Class 1: arithmetic evaluates array subscripts in values as code.
const ARITHMETIC: &[(&str, Risk)] = &[
    ("x='a[$(touch p)]'; echo $((x))", Medium),
    ("echo $((x))", Medium),
    ("echo $(( $1 + 1 ))", Medium),
    ("let y=x", Medium),
    ("((x++))", Medium),
    ("for ((i=0; i<n; i++)); do :; done", Medium),
    ("[[ $x -eq 1 ]] && echo yes", Medium),
    ("[[ -v x ]]", Medium),
    ("test -v 'a[$(touch p)]'", Medium),
    ("[ -v x ]", Medium),
    ("printf -v 'a[$(touch p)]' x", Medium),
    ("read 'a[$(touch p)]' <<< x", Medium),
    ("echo ${!x}", Medium),
    ("echo ${x:1:2}", Medium),
    ("echo ${x@P}", Medium),
    ("echo ${a[$i]}", Medium),
    ("declare -i n; n=x", Medium),
    ("x[0]=a", Medium),
    ("arr=(a b); echo ok", Medium),
];

/// Guards: arithmetic of literals and of values the line set to numbers.
const ARITHMETIC_GUARDS: &[(&str, Risk)] = &[
    ("echo $((1+2))", Low),
    ("n=3; echo $((n*2))", Low),
    ("let x=1+2", Low),
    ("for ((i=0; i<3; i++)); do echo $i; done", Low),
    ("[[ 1 -lt 2 ]] && echo yes", Low),
    ("[[ -f Cargo.toml ]] && cat Cargo.toml", Low),
    ("[[ $x == y ]] && echo same", Low),
    ("echo ${HOME} ${#x} ${x:-none} ${x%.rs}", Low),
];

/// Class 2: a value the line set goes stale when anything else assigns it.
const STALE: &[(&str, Risk)] = &[
    ("x=README.md; read x <<< .env; cat \"$x\"", Medium),
    ("x=README.md; printf -v x .env; cat \"$x\"", Medium),
    ("x=README.md; for x in .env; do :; done; cat \"$x\"", Medium),
    ("x=README.md; eval 'x=.env'; cat \"$x\"", Medium),
    ("x=README.md; x[0]=.env; cat \"$x\"", Medium),
    ("x=README.md; trap 'x=.env' DEBUG; cat \"$x\"", Medium),
    ("x=README.md; mapfile x < list; cat $x", Medium),
    ("x=README.md; while true; do cat $x; x=.env; done", Medium),
    ("x=README.md; unset x; cat $x", Medium),
    ("x=README.md; declare -n x=y; cat $x", Medium),
    ("x=README.md; : ${x:=.env}; cat $x", Medium),
    ("x=README.md; getopts ab x; cat $x", Medium),
    ("x=README.md; source ./env.sh; cat $x", Medium),
    ("x=README.md; ((x=1)); cat $x", Medium),
];

const STALE_GUARDS: &[(&str, Risk)] = &[
    ("x=README.md; cat \"$x\"", Low),
    ("x=README.md; y=2; cat $x", Low),
];

/// Class 3: aliases and shell options change how later words are read.
const OPTIONS: &[(&str, Risk)] = &[
    ("shopt -s expand_aliases; alias ls='touch p'; ls", Medium),
    ("shopt -s expand_aliases", Medium),
    ("BASH_ALIASES[ls]=x; ls", Medium),
    ("set -k; ls", Medium),
    ("set -o posix; ls", Medium),
    ("IFS=/; x=a/b; ls $x", Medium),
    ("BASH_FUNC_ls%%='() { rm -rf ~; }' bash -c ls", Medium),
    ("PS4='$(touch p)'; set -x; ls", Medium),
    ("BASH_ALIASES=x ls", Medium),
    ("coproc ls", Medium),
    ("enable -f ./x.so x", Medium),
];

const OPTIONS_GUARDS: &[(&str, Risk)] = &[
    ("set -euo pipefail; ls", Low),
    ("set -x; ls", Low),
    ("set +e; ls", Low),
    ("shopt nullglob", Low),
    ("alias ll='ls -la'", Low),
    ("trap 'echo bye' EXIT", Low),
];

/// Class 4: a function or `hash -p` runs instead of the program its name names.
const SHADOWING: &[(&str, Risk)] = &[
    ("cat(){ command rm \"$@\"; }; cat -rf ~", Critical),
    ("f(){ rm \"$@\"; }; f -rf ~", Critical),
    ("f(){ rm $1 $2; }; f -rf ~", Critical),
    ("f(){ rm \"$@\"; }; g(){ f -rf ~; }; g", Critical),
    ("ls(){ echo hi; }; ls", Medium),
    ("hash -p /bin/rm cat; cat x", Medium),
    ("function cat { rm -rf ~; }", Critical),
];

const SHADOWING_GUARDS: &[(&str, Risk)] = &[
    ("g(){ echo hi; }; g", Low),
    ("greet(){ echo \"hi $1\"; }; greet bob", Low),
];

/// Class 5: the directory stack and `~+`/`~-`.
const DIRECTORY_STACK: &[(&str, Risk)] = &[
    ("pushd ~/.aws; popd -n; cat credentials", Medium),
    ("pushd -n ~/.ssh; cat id_rsa", Medium),
    ("cat ~+/x", Medium),
    ("ls ~-", Medium),
    ("ls ~1", Medium),
    ("dirs -c", Medium),
    ("popd +1", Medium),
];

const DIRECTORY_STACK_GUARDS: &[(&str, Risk)] = &[("pushd src; ls; popd; ls", Low), ("dirs", Low)];

/// Class 7: the grammar hangs a here-document on a whole list.
const LIST_REDIRECTS: &[(&str, Risk)] = &[
    ("true && sh <<'EOF'\nrm -rf ~\nEOF", Critical),
    ("ls || bash <<EOF\nrm -rf /\nEOF", Critical),
    ("true; false || sh <<< 'rm -rf ~'", Critical),
];

const LIST_REDIRECTS_GUARDS: &[(&str, Risk)] = &[("true && cat <<'EOF'\nhello\nEOF", Low)];

/// Class 17: fork bombs and process floods.
const FLOODS: &[(&str, Risk)] = &[
    ("F(){ F|F& }; F", Critical),
    ("eval 'a(){ b|b& }'; eval 'b(){ a|a& }'; a", Critical),
    ("while true; do sh -c : & done", Critical),
    ("until false; do sleep 1 & done", Critical),
    ("for ((;;)); do ls & done", Critical),
];

const FLOODS_GUARDS: &[(&str, Risk)] = &[
    ("for f in a b; do echo $f & done; wait", Low),
    ("sleep 1 & wait", Low),
];

/// Values only known at run time are not pinned: at least Medium where they matter.
const UNPINNED: &[(&str, Risk)] = &[
    ("git log $X", Medium),
    ("ls $DIR", Medium),
    ("wc -l $(cat list)", Medium),
    ("printf \"$fmt\" x", Medium),
];

const UNPINNED_GUARDS: &[(&str, Risk)] = &[
    ("echo $PATH", Low),
    ("printf '%s\\n' \"$USER\"", Low),
    ("ls; echo $?", Low),
    ("cd src && ls", Low),
    ("diff <(ls src) <(ls docs)", Low),
];

#[test]
fn arithmetic_is_not_low_unless_its_values_are_known() {
    check_table(ARITHMETIC, true);
    check_table(ARITHMETIC_GUARDS, false);
}

#[test]
fn values_go_stale_when_anything_else_assigns_them() {
    check_table(STALE, true);
    check_table(STALE_GUARDS, false);
}

#[test]
fn aliases_and_shell_options_are_not_low() {
    check_table(OPTIONS, true);
    check_table(OPTIONS_GUARDS, false);
}

#[test]
fn functions_shadowing_programs_are_judged_by_their_bodies() {
    check_table(SHADOWING, true);
    check_table(SHADOWING_GUARDS, false);
}

#[test]
fn the_directory_stack_is_not_low() {
    check_table(DIRECTORY_STACK, true);
    check_table(DIRECTORY_STACK_GUARDS, false);
}

#[test]
fn a_here_document_on_a_list_is_the_last_command_s_input() {
    check_table(LIST_REDIRECTS, true);
    check_table(LIST_REDIRECTS_GUARDS, false);
}

#[test]
fn fork_bombs_and_process_floods_are_critical() {
    check_table(FLOODS, true);
    check_table(FLOODS_GUARDS, false);
}

#[test]
fn values_only_known_at_run_time_are_not_low_where_they_matter() {
    check_table(UNPINNED, true);
    check_table(UNPINNED_GUARDS, false);
}

/// Found by `no_spelling_lowers_the_command`: tree-sitter-bash's body node of a
/// here-document leaves out a line that starts with a backslash, so the script given to
/// a shell looked empty.
#[test]
fn a_here_document_line_starting_with_a_backslash_is_judged() {
    check_table(
        &[
            ("sh <<'EOF'\n\\rm -rf ~\nEOF", Critical),
            ("true && sh <<'EOF'\n\\rm -rf ~\nEOF", Critical),
        ],
        true,
    );
    check_table(&[("sh <<'EOF'\nls\nEOF", Low)], false);
}
