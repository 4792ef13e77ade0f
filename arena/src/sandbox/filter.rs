//! The seccomp filter every bot runs under (built with `seccompiler`, rust-vmm's):
//! default allow, with the system calls a game bot never needs refused. A deny list,
//! not an allow list: bots are written in any language and runtime, and an allow list
//! that fits them all is as wide as this one is narrow; what is refused here is what
//! sandbox escapes and side channels are made of.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// Refused outright (`EPERM`).
const REFUSED: &[i64] = &[
    // New namespaces (a nested user namespace spends the host's quota), entering others.
    libc::SYS_unshare,
    libc::SYS_setns,
    // Tracing and reading other processes.
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
    // Mounts, old and new API.
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_mount_setattr,
    // The kernel's keyrings, BPF, performance counters (a side channel on others).
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    // io_uring: a second way to every system call, past this filter.
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    // The machine itself.
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_syslog,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_fanotify_init,
    libc::SYS_vhangup,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// Namespace flags `clone` may not carry.
const NAMESPACE_FLAGS: [libc::c_int; 7] = [
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
];

/// Terminal ioctls that type into a terminal or read its screen.
const TTY_REQUESTS: [u64; 2] = [libc::TIOCSTI, libc::TIOCLINUX];

fn arch() -> Result<seccompiler::TargetArch, String> {
    std::env::consts::ARCH
        .try_into()
        .map_err(|e| format!("seccomp filters are built for x86_64 and aarch64: {e:?}"))
}

/// The two filters: the refusals (`EPERM`), and `clone3` answered `ENOSYS` (its flags
/// are behind a pointer no filter can read; C libraries then fall back to `clone`,
/// whose flags the first filter checks).
pub fn programs() -> Result<[BpfProgram; 2], String> {
    let e = |e: seccompiler::BackendError| e.to_string();
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        REFUSED.iter().map(|&nr| (nr, Vec::new())).collect();
    rules.insert(
        libc::SYS_clone,
        NAMESPACE_FLAGS
            .iter()
            .map(|&flag| {
                let flag = flag as u64;
                SeccompRule::new(vec![
                    SeccompCondition::new(
                        0,
                        SeccompCmpArgLen::Qword,
                        SeccompCmpOp::MaskedEq(flag),
                        flag,
                    )
                    .map_err(e)?,
                ])
                .map_err(e)
            })
            .collect::<Result<_, _>>()?,
    );
    // The request is an `unsigned int` to the kernel: compare its low 32 bits only, so
    // no high bit set by the caller slips past.
    rules.insert(
        libc::SYS_ioctl,
        TTY_REQUESTS
            .iter()
            .map(|&request| {
                SeccompRule::new(vec![
                    SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request)
                        .map_err(e)?,
                ])
                .map_err(e)
            })
            .collect::<Result<_, _>>()?,
    );
    let refuse = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch()?,
    )
    .map_err(e)?;
    let clone3 = SeccompFilter::new(
        [(libc::SYS_clone3, Vec::new())].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch()?,
    )
    .map_err(e)?;
    Ok([
        refuse
            .try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())?,
        clone3
            .try_into()
            .map_err(|e: seccompiler::BackendError| e.to_string())?,
    ])
}

/// Installs both filters on this process (and so on the bot it starts). `no_new_privs`
/// must be set first.
pub fn apply() -> Result<(), String> {
    for program in programs()? {
        seccompiler::apply_filter_all_threads(&program).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filters_compile_for_this_machine() {
        let [refuse, clone3] = super::programs().unwrap();
        assert!(refuse.len() > super::REFUSED.len());
        assert!(!clone3.is_empty());
    }
}
