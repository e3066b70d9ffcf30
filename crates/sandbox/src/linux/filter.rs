//! The seccomp filter: the sockets Landlock's network rules do not cover. Landlock
//! (ABI 4 to 8) rules TCP `bind` and `connect` only; without the network, a socket
//! of any other kind (UDP, raw, SCTP, packet, Bluetooth, …) is refused when it is
//! created. `io_uring` is refused always: its operations do not pass through seccomp.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op,
    SeccompCondition as Cond, SeccompFilter, SeccompRule, TargetArch,
};

use super::ExecError;

/// The families a confined process may open sockets of without the network: local
/// sockets, the kernel's netlink, and TCP over IPv4 and IPv6 (which Landlock rules).
const LOCAL_FAMILIES: [i32; 2] = [libc::AF_UNIX, libc::AF_NETLINK];
const IP_FAMILIES: [i32; 2] = [libc::AF_INET, libc::AF_INET6];

/// Socket types other than a stream, by their number in the low bits of `type`.
const NOT_STREAM: [i32; 6] = [
    libc::SOCK_DGRAM,
    libc::SOCK_RAW,
    libc::SOCK_RDM,
    libc::SOCK_SEQPACKET,
    libc::SOCK_DCCP,
    // SOCK_PACKET (deprecated, still accepted by the kernel).
    10,
];

/// The x32 ABI's system calls on x86-64 carry this bit and are checked against the
/// same architecture: they are refused alike.
#[cfg(target_arch = "x86_64")]
const X32: i64 = 0x4000_0000;

fn cond(arg: u8, op: Op, value: i32) -> Result<Cond, ExecError> {
    // Socket arguments are C ints: compare their low 32 bits.
    Ok(Cond::new(arg, Len::Dword, op, u64::from(value as u32))?)
}

/// The rules under which `socket` is refused without the network.
fn socket_rules() -> Result<Vec<SeccompRule>, ExecError> {
    let mut rules = Vec::new();
    // Any family but the local ones and IP.
    let others = LOCAL_FAMILIES
        .iter()
        .chain(&IP_FAMILIES)
        .map(|family| cond(0, Op::Ne, *family))
        .collect::<Result<Vec<_>, _>>()?;
    rules.push(SeccompRule::new(others)?);
    for family in IP_FAMILIES {
        // IP sockets other than streams: UDP, raw, SCTP's sequenced packets, …
        for kind in NOT_STREAM {
            rules.push(SeccompRule::new(vec![
                cond(0, Op::Eq, family)?,
                cond(1, Op::MaskedEq(0xf), kind)?,
            ])?);
        }
        // Streams of another protocol than TCP (SCTP, MPTCP).
        rules.push(SeccompRule::new(vec![
            cond(0, Op::Eq, family)?,
            cond(1, Op::MaskedEq(0xf), libc::SOCK_STREAM)?,
            cond(2, Op::Ne, 0)?,
            cond(2, Op::Ne, libc::IPPROTO_TCP)?,
        ])?);
    }
    Ok(rules)
}

/// Installs the filter on this process; it is inherited across `fork` and `exec`.
pub(super) fn install(network: bool) -> Result<(), ExecError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    if !network {
        rules.insert(libc::SYS_socket, socket_rules()?);
        #[cfg(target_arch = "x86_64")]
        rules.insert(X32 | libc::SYS_socket, socket_rules()?);
    }
    for call in [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        rules.insert(call, Vec::new());
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    let program: BpfProgram = filter.try_into()?;
    seccompiler::apply_filter(&program)?;
    Ok(())
}
