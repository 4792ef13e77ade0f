//! The seccomp filters every bot runs under (built with `seccompiler`, rust-vmm's): an
//! allowlist of the system calls programs in the common runtimes make (Python, C, shells,
//! JITs), grouped by family in [`ALLOWED`], each family with the reason it is kept. Any
//! other call, or one of a foreign ABI (x32's numbers), is answered `ENOSYS`, which C
//! libraries and runtimes take as "this kernel is older" and fall back from; a 32-bit
//! call (`int 0x80`) kills the process. A few allowed calls are refused by their
//! arguments, each by a filter of its own that answers the error the kernel itself
//! would give ([`Refusal`]).
//!
//! `docs/sandbox.md`, "The system calls a bot may make", says the same for operators.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, sock_filter,
};

/// A family of system calls and why a bot gets (or does not get) it.
pub struct Family {
    pub name: &'static str,
    pub why: &'static str,
    pub calls: &'static [i64],
}

/// Numbers newer than the `libc` crate's tables for some architectures: the same on every
/// architecture since Linux 5.1 unified them (424 onwards).
const SYS_FCHMODAT2: i64 = 452;
#[cfg(target_arch = "x86_64")]
const SYS_MAP_SHADOW_STACK: i64 = 453;

/// What a bot may call. A call refused by its arguments is here too, so that its filter's
/// error is the only one it meets (two errors for one call: the kernel picks by filter
/// order, not by intent).
const ALLOWED: &[Family] = &[
    Family {
        name: "descriptors",
        why: "reading and writing what it holds open: pipes, its own files (tmpfs), read-only \
              system files; ioctl without the terminal-injecting requests; sync and syncfs \
              answered 0 without running (they flush every disk of the host)",
        calls: &[
            libc::SYS_read,
            libc::SYS_write,
            libc::SYS_readv,
            libc::SYS_writev,
            libc::SYS_pread64,
            libc::SYS_pwrite64,
            libc::SYS_preadv,
            libc::SYS_pwritev,
            libc::SYS_preadv2,
            libc::SYS_pwritev2,
            libc::SYS_lseek,
            libc::SYS_close,
            libc::SYS_close_range,
            libc::SYS_dup,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_dup2,
            libc::SYS_dup3,
            libc::SYS_fcntl,
            libc::SYS_ioctl,
            libc::SYS_flock,
            libc::SYS_sendfile,
            libc::SYS_splice,
            libc::SYS_tee,
            libc::SYS_vmsplice,
            libc::SYS_copy_file_range,
            libc::SYS_readahead,
            libc::SYS_fadvise64,
            libc::SYS_fsync,
            libc::SYS_fdatasync,
            libc::SYS_sync,
            libc::SYS_syncfs,
            libc::SYS_ftruncate,
            libc::SYS_fallocate,
        ],
    },
    Family {
        name: "paths",
        why: "opening, listing and changing files by name: the view and Landlock decide what \
              exists and what is writable (its folder, /tmp, /dev/shm); O_DIRECT refused",
        calls: &[
            libc::SYS_openat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_open,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_creat,
            libc::SYS_fstat,
            libc::SYS_newfstatat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_stat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_lstat,
            libc::SYS_statx,
            libc::SYS_statfs,
            libc::SYS_fstatfs,
            libc::SYS_faccessat,
            libc::SYS_faccessat2,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_access,
            libc::SYS_readlinkat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_readlink,
            libc::SYS_getdents64,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_getdents,
            libc::SYS_getcwd,
            libc::SYS_chdir,
            libc::SYS_fchdir,
            libc::SYS_mkdirat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_mkdir,
            libc::SYS_unlinkat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_unlink,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_rmdir,
            libc::SYS_renameat2,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_renameat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_rename,
            libc::SYS_linkat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_link,
            libc::SYS_symlinkat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_symlink,
            libc::SYS_mknodat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_mknod,
            libc::SYS_truncate,
            libc::SYS_fchmod,
            libc::SYS_fchmodat,
            SYS_FCHMODAT2,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_chmod,
            libc::SYS_fchown,
            libc::SYS_fchownat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_chown,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_lchown,
            libc::SYS_umask,
            libc::SYS_utimensat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_utime,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_utimes,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_futimesat,
        ],
    },
    Family {
        name: "xattrs",
        why: "copying tools (cp -a, Python's shutil.copy2) carry extended attributes, and \
              fail on ENOSYS where they expect ENOTSUP",
        calls: &[
            libc::SYS_getxattr,
            libc::SYS_lgetxattr,
            libc::SYS_fgetxattr,
            libc::SYS_listxattr,
            libc::SYS_llistxattr,
            libc::SYS_flistxattr,
            libc::SYS_setxattr,
            libc::SYS_lsetxattr,
            libc::SYS_fsetxattr,
            libc::SYS_removexattr,
            libc::SYS_lremovexattr,
            libc::SYS_fremovexattr,
        ],
    },
    Family {
        name: "memory",
        why: "allocators, JITs (mprotect makes code executable), memory shared with its own \
              processes: all of it charged to its memory cgroup; mlock bounded by \
              RLIMIT_MEMLOCK",
        calls: &[
            libc::SYS_brk,
            libc::SYS_mmap,
            libc::SYS_munmap,
            libc::SYS_mremap,
            libc::SYS_mprotect,
            libc::SYS_madvise,
            libc::SYS_msync,
            libc::SYS_mincore,
            libc::SYS_mlock,
            libc::SYS_mlock2,
            libc::SYS_munlock,
            libc::SYS_mlockall,
            libc::SYS_munlockall,
            libc::SYS_membarrier,
            libc::SYS_memfd_create,
            libc::SYS_pkey_mprotect,
            libc::SYS_pkey_alloc,
            libc::SYS_pkey_free,
            libc::SYS_get_mempolicy,
            libc::SYS_set_mempolicy,
            libc::SYS_mbind,
            libc::SYS_mseal,
            #[cfg(target_arch = "x86_64")]
            SYS_MAP_SHADOW_STACK,
        ],
    },
    Family {
        name: "processes",
        why: "threads, subprocesses, shells: its PID namespace holds only its own and the \
              pids cgroup caps them; clone without namespace flags (clone3, whose flags no \
              filter can read, is ENOSYS: C libraries fall back on clone); personality only \
              read or set to PER_LINUX",
        calls: &[
            libc::SYS_clone,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_fork,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_vfork,
            libc::SYS_execve,
            libc::SYS_execveat,
            libc::SYS_exit,
            libc::SYS_exit_group,
            libc::SYS_wait4,
            libc::SYS_waitid,
            libc::SYS_set_tid_address,
            libc::SYS_set_robust_list,
            libc::SYS_rseq,
            libc::SYS_futex,
            libc::SYS_futex_waitv,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_arch_prctl,
            libc::SYS_prctl,
            libc::SYS_personality,
            libc::SYS_restart_syscall,
            libc::SYS_getpid,
            libc::SYS_getppid,
            libc::SYS_gettid,
            libc::SYS_getpgid,
            libc::SYS_setpgid,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_getpgrp,
            libc::SYS_getsid,
            libc::SYS_setsid,
            libc::SYS_pidfd_open,
            libc::SYS_sched_yield,
            libc::SYS_sched_getaffinity,
            libc::SYS_sched_setaffinity,
            libc::SYS_sched_getparam,
            libc::SYS_sched_setparam,
            libc::SYS_sched_getscheduler,
            libc::SYS_sched_setscheduler,
            libc::SYS_sched_getattr,
            libc::SYS_sched_setattr,
            libc::SYS_sched_get_priority_max,
            libc::SYS_sched_get_priority_min,
            libc::SYS_sched_rr_get_interval,
            libc::SYS_getpriority,
            libc::SYS_setpriority,
            libc::SYS_getcpu,
        ],
    },
    Family {
        name: "signals",
        why: "runtimes' own signals (Go's preemption, JVM safepoints, Python's handlers, \
              timeouts): its PID namespace and Landlock's signal scope keep them inside; \
              RLIMIT_SIGPENDING bounds the queue",
        calls: &[
            libc::SYS_rt_sigaction,
            libc::SYS_rt_sigprocmask,
            libc::SYS_rt_sigreturn,
            libc::SYS_rt_sigpending,
            libc::SYS_rt_sigtimedwait,
            libc::SYS_rt_sigsuspend,
            libc::SYS_rt_sigqueueinfo,
            libc::SYS_rt_tgsigqueueinfo,
            libc::SYS_sigaltstack,
            libc::SYS_kill,
            libc::SYS_tkill,
            libc::SYS_tgkill,
            libc::SYS_pidfd_send_signal,
            libc::SYS_signalfd4,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_signalfd,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_pause,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_alarm,
        ],
    },
    Family {
        name: "time",
        why: "reading clocks, sleeping, timers (the clocks' setters are not here)",
        calls: &[
            libc::SYS_clock_gettime,
            libc::SYS_clock_getres,
            libc::SYS_clock_nanosleep,
            libc::SYS_nanosleep,
            libc::SYS_gettimeofday,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_time,
            libc::SYS_times,
            libc::SYS_getitimer,
            libc::SYS_setitimer,
            libc::SYS_timer_create,
            libc::SYS_timer_settime,
            libc::SYS_timer_gettime,
            libc::SYS_timer_getoverrun,
            libc::SYS_timer_delete,
            libc::SYS_timerfd_create,
            libc::SYS_timerfd_settime,
            libc::SYS_timerfd_gettime,
        ],
    },
    Family {
        name: "waiting",
        why: "event loops (asyncio, libuv, Go's netpoller) wait on its own descriptors",
        calls: &[
            #[cfg(target_arch = "x86_64")]
            libc::SYS_poll,
            libc::SYS_ppoll,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_select,
            libc::SYS_pselect6,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_epoll_create,
            libc::SYS_epoll_create1,
            libc::SYS_epoll_ctl,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_epoll_wait,
            libc::SYS_epoll_pwait,
            libc::SYS_epoll_pwait2,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_eventfd,
            libc::SYS_eventfd2,
        ],
    },
    Family {
        name: "sockets",
        why: "pipes and unix sockets between its own processes (multiprocessing, a shell's \
              pipelines); inet sockets reach nothing, its network namespace holding only a \
              loopback of its own (and Landlock refusing TCP where the kernel has it); \
              socket families but unix, inet and inet6 refused",
        calls: &[
            #[cfg(target_arch = "x86_64")]
            libc::SYS_pipe,
            libc::SYS_pipe2,
            libc::SYS_socket,
            libc::SYS_socketpair,
            libc::SYS_bind,
            libc::SYS_listen,
            libc::SYS_accept,
            libc::SYS_accept4,
            libc::SYS_connect,
            libc::SYS_getsockname,
            libc::SYS_getpeername,
            libc::SYS_sendto,
            libc::SYS_recvfrom,
            libc::SYS_sendmsg,
            libc::SYS_recvmsg,
            libc::SYS_sendmmsg,
            libc::SYS_recvmmsg,
            libc::SYS_shutdown,
            libc::SYS_setsockopt,
            libc::SYS_getsockopt,
        ],
    },
    Family {
        name: "identity",
        why: "programs ask who they are and what they may use, shells drop the ids they \
              have; without a capability, a change of id or a raised hard limit is the \
              kernel's to refuse",
        calls: &[
            libc::SYS_getuid,
            libc::SYS_geteuid,
            libc::SYS_getgid,
            libc::SYS_getegid,
            libc::SYS_getresuid,
            libc::SYS_getresgid,
            libc::SYS_getgroups,
            libc::SYS_setuid,
            libc::SYS_setgid,
            libc::SYS_setreuid,
            libc::SYS_setregid,
            libc::SYS_setresuid,
            libc::SYS_setresgid,
            libc::SYS_setgroups,
            libc::SYS_setfsuid,
            libc::SYS_setfsgid,
            libc::SYS_capget,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_getrlimit,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_setrlimit,
            libc::SYS_prlimit64,
            libc::SYS_getrusage,
        ],
    },
    Family {
        name: "system",
        why: "runtimes size their heaps and pools by memory and cores (sysinfo, which also \
              shows the host's load averages) and seed hash tables (getrandom); uname names \
              its own UTS namespace",
        calls: &[libc::SYS_uname, libc::SYS_sysinfo, libc::SYS_getrandom],
    },
    Family {
        name: "sysv_ipc",
        why: "System V shared memory, semaphores and queues between its own processes: its \
              IPC namespace is its own",
        calls: &[
            libc::SYS_shmget,
            libc::SYS_shmat,
            libc::SYS_shmdt,
            libc::SYS_shmctl,
            libc::SYS_semget,
            libc::SYS_semop,
            libc::SYS_semtimedop,
            libc::SYS_semctl,
            libc::SYS_msgget,
            libc::SYS_msgsnd,
            libc::SYS_msgrcv,
            libc::SYS_msgctl,
        ],
    },
];

/// Calls a bot does not get (answered `ENOSYS`, as every call off [`ALLOWED`]), named
/// so that a test holds them off the list; not every call off the list is named here.
#[cfg(test)]
const REFUSED: &[Family] = &[
    Family {
        name: "namespaces and mounts",
        why: "a nested user namespace spends the host's quota; the view is the arena's",
        calls: &[
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_clone3,
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
            libc::SYS_sethostname,
            libc::SYS_setdomainname,
        ],
    },
    Family {
        name: "other processes",
        why: "tracing or reading another process, or comparing its files",
        calls: &[
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_pidfd_getfd,
            libc::SYS_kcmp,
            libc::SYS_get_robust_list,
            libc::SYS_process_madvise,
            libc::SYS_process_mrelease,
            libc::SYS_migrate_pages,
            libc::SYS_move_pages,
        ],
    },
    Family {
        name: "shared kernel objects",
        why: "inotify and fanotify see other processes' use of the host's files and are \
              charged to the host's user; AIO's pool (fs.aio-max-nr) is the machine's; \
              io_uring runs calls past this filter; POSIX queues are charged per host user",
        calls: &[
            #[cfg(target_arch = "x86_64")]
            libc::SYS_inotify_init,
            libc::SYS_inotify_init1,
            libc::SYS_inotify_add_watch,
            libc::SYS_inotify_rm_watch,
            libc::SYS_fanotify_init,
            libc::SYS_fanotify_mark,
            libc::SYS_io_setup,
            libc::SYS_io_destroy,
            libc::SYS_io_submit,
            libc::SYS_io_cancel,
            libc::SYS_io_getevents,
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_mq_open,
            libc::SYS_mq_unlink,
            libc::SYS_mq_timedsend,
            libc::SYS_mq_timedreceive,
            libc::SYS_mq_notify,
            libc::SYS_mq_getsetattr,
        ],
    },
    Family {
        name: "kernel surface",
        why: "interfaces that sandbox escapes and side channels are made of, which no game \
              bot needs",
        calls: &[
            libc::SYS_bpf,
            libc::SYS_perf_event_open,
            libc::SYS_keyctl,
            libc::SYS_add_key,
            libc::SYS_request_key,
            libc::SYS_userfaultfd,
            libc::SYS_memfd_secret,
            libc::SYS_seccomp,
            libc::SYS_landlock_create_ruleset,
            libc::SYS_landlock_add_rule,
            libc::SYS_landlock_restrict_self,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_modify_ldt,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_set_thread_area,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_get_thread_area,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_uselib,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_ustat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_sysfs,
            libc::SYS_remap_file_pages,
        ],
    },
    Family {
        name: "the machine",
        why: "the host's kernel, clocks, disks and devices",
        calls: &[
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
            libc::SYS_quotactl_fd,
            libc::SYS_syslog,
            libc::SYS_settimeofday,
            libc::SYS_clock_settime,
            libc::SYS_clock_adjtime,
            libc::SYS_adjtimex,
            libc::SYS_vhangup,
            libc::SYS_lookup_dcookie,
            libc::SYS_name_to_handle_at,
            libc::SYS_open_by_handle_at,
            libc::SYS_ioprio_set,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_sync_file_range,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_iopl,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_ioperm,
        ],
    },
    Family {
        name: "flags behind a pointer",
        why: "openat2's flags (O_DIRECT among them) are in memory no filter can read; C \
              libraries use openat",
        calls: &[libc::SYS_openat2],
    },
];

/// An allowed call refused by its arguments: `errno` where `rules` say so.
struct Refusal {
    errno: u32,
    rules: BTreeMap<i64, Vec<SeccompRule>>,
}

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

/// Socket families a bot may open: unix, and inet ones in its empty network namespace.
/// Not vsock (one port space for the whole machine, across network namespaces: two bots
/// passed their hands through it), netlink, packet, or the rest of the kernel's.
const SOCKET_FAMILIES: [libc::c_int; 3] = [libc::AF_UNIX, libc::AF_INET, libc::AF_INET6];

/// `personality` values a bot may pass: the query, and the default it already has.
const PERSONALITY_QUERY: u64 = 0xffff_ffff;
const PER_LINUX: u64 = 0;

type Built<T> = Result<T, String>;

fn e(e: seccompiler::BackendError) -> String {
    e.to_string()
}

/// The argument `index` compared as the kernel reads it: `int` and `unsigned int`
/// arguments on their low 32 bits, so no high bit a caller sets slips past.
fn dword(index: u8, op: SeccompCmpOp, value: u64) -> Built<SeccompCondition> {
    SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value).map_err(e)
}

fn rule(conditions: Vec<SeccompCondition>) -> Built<SeccompRule> {
    SeccompRule::new(conditions).map_err(e)
}

/// `EPERM`, as the kernel answers a caller without the right: clone into new
/// namespaces, terminal injection, personality changes (PER_LINUX32's uname,
/// ADDR_NO_RANDOMIZE's fixed addresses for what it executes).
fn not_permitted() -> Built<Refusal> {
    let mut rules = BTreeMap::new();
    let clone = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| {
            let flag = flag as u64;
            // `unsigned long` flags: all 64 bits.
            let whole = SeccompCmpArgLen::Qword;
            rule(vec![
                SeccompCondition::new(0, whole, SeccompCmpOp::MaskedEq(flag), flag).map_err(e)?,
            ])
        })
        .collect::<Built<_>>()?;
    rules.insert(libc::SYS_clone, clone);
    let ioctl = TTY_REQUESTS
        .iter()
        .map(|&request| rule(vec![dword(1, SeccompCmpOp::Eq, request)?]))
        .collect::<Built<_>>()?;
    rules.insert(libc::SYS_ioctl, ioctl);
    rules.insert(
        libc::SYS_personality,
        vec![rule(vec![
            dword(0, SeccompCmpOp::Ne, PER_LINUX)?,
            dword(0, SeccompCmpOp::Ne, PERSONALITY_QUERY)?,
        ])?],
    );
    Ok(Refusal {
        errno: libc::EPERM as u32,
        rules,
    })
}

/// `EAFNOSUPPORT`, as a kernel without the family answers: socket families other than
/// [`SOCKET_FAMILIES`]; socket pairs other than unix ones.
fn family_not_supported() -> Built<Refusal> {
    let mut rules = BTreeMap::new();
    let others = SOCKET_FAMILIES
        .iter()
        .map(|&family| dword(0, SeccompCmpOp::Ne, family as u64))
        .collect::<Built<_>>()?;
    rules.insert(libc::SYS_socket, vec![rule(others)?]);
    rules.insert(
        libc::SYS_socketpair,
        vec![rule(vec![dword(
            0,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )?])?],
    );
    Ok(Refusal {
        errno: libc::EAFNOSUPPORT as u32,
        rules,
    })
}

/// `EINVAL`, as a file system without direct I/O answers (programs fall back on the page
/// cache): `O_DIRECT` in an open's flags or set later by `fcntl(F_SETFL)`. Direct reads
/// of the host's disk are I/O no cgroup here charges: through the page cache, a bot
/// reading its program files again and again reads memory.
fn invalid() -> Built<Refusal> {
    let direct = libc::O_DIRECT as u64;
    let mut rules = BTreeMap::new();
    rules.insert(
        libc::SYS_openat,
        vec![rule(vec![dword(
            2,
            SeccompCmpOp::MaskedEq(direct),
            direct,
        )?])?],
    );
    #[cfg(target_arch = "x86_64")]
    rules.insert(
        libc::SYS_open,
        vec![rule(vec![dword(
            1,
            SeccompCmpOp::MaskedEq(direct),
            direct,
        )?])?],
    );
    rules.insert(
        libc::SYS_fcntl,
        vec![rule(vec![
            dword(1, SeccompCmpOp::Eq, libc::F_SETFL as u64)?,
            dword(2, SeccompCmpOp::MaskedEq(direct), direct)?,
        ])?],
    );
    Ok(Refusal {
        errno: libc::EINVAL as u32,
        rules,
    })
}

/// `0` without running: `sync` and `syncfs` write back every file system of the host
/// (syncfs on a descriptor of a read-only system file: the host's root), I/O no cgroup
/// here charges. Everything a bot may write is tmpfs, which has nothing to write back,
/// so "done" is the truth for its own files, and programs that check stay content.
fn no_op() -> Built<Refusal> {
    Ok(Refusal {
        errno: 0,
        rules: [libc::SYS_sync, libc::SYS_syncfs]
            .into_iter()
            .map(|nr| (nr, Vec::new()))
            .collect(),
    })
}

fn refusals() -> Built<[Refusal; 4]> {
    Ok([
        not_permitted()?,
        family_not_supported()?,
        invalid()?,
        no_op()?,
    ])
}

fn arch() -> Built<seccompiler::TargetArch> {
    std::env::consts::ARCH
        .try_into()
        .map_err(|e| format!("seccomp filters are built for x86_64 and aarch64: {e:?}"))
}

/// Every allowed call, in [`ALLOWED`]'s order.
fn allowed_calls() -> impl Iterator<Item = i64> {
    ALLOWED.iter().flat_map(|f| f.calls.iter().copied())
}

/// `struct seccomp_data`: the call's number, then its architecture.
const NR_OFFSET: u32 = 0;
const ARCH_OFFSET: u32 = 4;
#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7;
/// The most instructions the kernel takes in one program (`BPF_MAXINSNS`).
const MAX_INSTRUCTIONS: usize = 4096;
/// Calls a leaf of the search tests one after the other.
const LEAF: usize = 4;

fn instruction(code: u32, jt: u8, jf: u8, k: u32) -> sock_filter {
    sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

fn ret(action: u32) -> sock_filter {
    instruction(libc::BPF_RET | libc::BPF_K, 0, 0, action)
}

/// The allowlist as a binary search over the call numbers. seccompiler's filters test
/// one call after another, and the kernel runs a new filter once per call number when
/// it is attached, to cache the answers that do not depend on the arguments: a list of
/// 230 calls took 470 µs to attach here, this search 105 µs, at every bot's start.
/// Another architecture's call (32-bit, `int 0x80`) kills the process; a foreign ABI's
/// number (x32's, bit 30 set) falls past every call: `ENOSYS`.
fn allowlist(calls: &[i64]) -> Built<BpfProgram> {
    let mut numbers = calls
        .iter()
        .map(|&nr| u32::try_from(nr).map_err(|_| format!("call number {nr}")))
        .collect::<Built<Vec<u32>>>()?;
    numbers.sort_unstable();
    numbers.dedup();
    let load = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
    let mut program = vec![
        instruction(load, 0, 0, ARCH_OFFSET),
        instruction(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            1,
            0,
            AUDIT_ARCH,
        ),
        ret(libc::SECCOMP_RET_KILL_PROCESS),
        instruction(load, 0, 0, NR_OFFSET),
    ];
    program.extend(search(&numbers));
    if program.len() > MAX_INSTRUCTIONS {
        return Err(format!(
            "the allowlist takes {} instructions",
            program.len()
        ));
    }
    Ok(program)
}

/// Allows the call numbers `sorted` (the accumulator holds the call's number), answers
/// any other `ENOSYS`.
fn search(sorted: &[u32]) -> Vec<sock_filter> {
    if sorted.len() <= LEAF {
        let n = sorted.len();
        // Each test jumps, when equal, past those after it and the refusal.
        let mut leaf: Vec<sock_filter> = sorted
            .iter()
            .enumerate()
            .map(|(i, &nr)| {
                instruction(
                    libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
                    (n - i) as u8,
                    0,
                    nr,
                )
            })
            .collect();
        leaf.push(ret(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32));
        leaf.push(ret(libc::SECCOMP_RET_ALLOW));
        return leaf;
    }
    let (below, above) = sorted.split_at(sorted.len() / 2);
    let lower = search(below);
    // At or above the upper half's first call: over the lower half, by a jump whose
    // 32-bit offset no size of the lower half overflows (a condition's is 8 bits).
    let mut node = vec![
        instruction(libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K, 0, 1, above[0]),
        instruction(libc::BPF_JMP | libc::BPF_JA, 0, 0, lower.len() as u32),
    ];
    node.extend(lower);
    node.extend(search(above));
    node
}

/// The filters, the allowlist last: it refuses `seccomp`, which installs the others.
/// The argument rules, built by seccompiler (a test per call, in increasing call
/// number), are short lists; the kernel caches, per filter and call number, an answer
/// that does not depend on the arguments (Linux 5.11), so only the calls with argument
/// rules run the programs at all.
pub fn programs() -> Built<Vec<BpfProgram>> {
    let allowed: Vec<i64> = allowed_calls().collect();
    let mut programs = Vec::new();
    for refusal in refusals()? {
        let filter = SeccompFilter::new(
            refusal.rules,
            SeccompAction::Allow,
            SeccompAction::Errno(refusal.errno),
            arch()?,
        )
        .map_err(e)?;
        programs.push(BpfProgram::try_from(filter).map_err(e)?);
    }
    programs.push(allowlist(&allowed)?);
    Ok(programs)
}

/// Installs the filters on this process (and so on the bot it starts). `no_new_privs`
/// must be set first.
pub fn apply() -> Result<(), String> {
    for program in programs()? {
        seccompiler::apply_filter_all_threads(&program).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn the_filters_compile_for_this_machine() {
        let programs = programs().unwrap();
        assert_eq!(programs.len(), 5);
        assert!(programs.iter().all(|p| !p.is_empty()));
    }

    /// What a program answers for call `nr` of architecture `arch`: the classic BPF the
    /// allowlist is made of, run as the kernel runs it.
    fn run(program: &[sock_filter], nr: u32, arch: u32) -> u32 {
        let (mut pc, mut acc) = (0, 0);
        loop {
            let i = &program[pc];
            let code = u32::from(i.code);
            pc += 1;
            match code {
                c if c == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS => {
                    acc = if i.k == ARCH_OFFSET { arch } else { nr };
                }
                c if c == libc::BPF_RET | libc::BPF_K => return i.k,
                c if c == libc::BPF_JMP | libc::BPF_JA => pc += i.k as usize,
                c if c == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K => {
                    pc += usize::from(if acc == i.k { i.jt } else { i.jf });
                }
                c if c == libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K => {
                    pc += usize::from(if acc >= i.k { i.jt } else { i.jf });
                }
                other => panic!("instruction {other:#x}"),
            }
        }
    }

    #[test]
    fn the_allowlist_allows_exactly_its_calls() {
        let allowed: BTreeSet<u32> = allowed_calls().map(|nr| nr as u32).collect();
        let program = allowlist(&allowed_calls().collect::<Vec<_>>()).unwrap();
        let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
        // Past the highest call number, x32's numbers (bit 30) and -1.
        let numbers = (0..1024).chain([0x4000_0000, 0x4000_0001, 0x4000_0101, u32::MAX]);
        for nr in numbers {
            let expected = if allowed.contains(&nr) {
                libc::SECCOMP_RET_ALLOW
            } else {
                enosys
            };
            assert_eq!(run(&program, nr, AUDIT_ARCH), expected, "call {nr}");
            let i386 = 0x4000_0003;
            assert_eq!(
                run(&program, nr, i386),
                libc::SECCOMP_RET_KILL_PROCESS,
                "call {nr}"
            );
        }
        // A tree: fewer instructions than a list's four a call.
        assert!(program.len() < 3 * allowed.len(), "{}", program.len());
    }

    /// Small lists too: every size of leaf, and a single call.
    #[test]
    fn the_search_holds_for_any_number_of_calls() {
        for count in 1..40u32 {
            let calls: Vec<i64> = (0..count).map(|i| i64::from(3 * i + 1)).collect();
            let program = allowlist(&calls).unwrap();
            for nr in 0..(3 * count + 3) {
                let allowed = nr % 3 == 1 && nr < 3 * count;
                let answer = run(&program, nr, AUDIT_ARCH);
                assert_eq!(
                    answer == libc::SECCOMP_RET_ALLOW,
                    allowed,
                    "{count} calls, {nr}"
                );
            }
        }
    }

    #[test]
    fn the_allowlist_names_each_call_once() {
        let mut seen = BTreeSet::new();
        for family in ALLOWED {
            for nr in family.calls {
                assert!(seen.insert(nr), "call {nr} twice (family {})", family.name);
            }
        }
        assert!(seen.len() > 150, "{} calls", seen.len());
    }

    #[test]
    fn the_allowlist_holds_no_refused_call() {
        let allowed: BTreeSet<i64> = allowed_calls().collect();
        for family in REFUSED {
            for nr in family.calls {
                assert!(
                    !allowed.contains(nr),
                    "call {nr} is refused ({}) and allowed",
                    family.name
                );
            }
        }
        // Those the hostile bots of issue 41 used.
        for nr in [
            libc::SYS_inotify_init1,
            libc::SYS_fanotify_init,
            libc::SYS_io_setup,
            libc::SYS_io_submit,
            libc::SYS_io_uring_setup,
            libc::SYS_memfd_secret,
            libc::SYS_userfaultfd,
            libc::SYS_openat2,
            libc::SYS_clone3,
        ] {
            assert!(!allowed.contains(&nr), "call {nr} is allowed");
        }
    }

    /// A call with argument rules must be allowed, or the allowlist's ENOSYS and the
    /// rule's error would both answer it.
    #[test]
    fn every_call_refused_by_its_arguments_is_allowed() {
        let allowed: BTreeSet<i64> = allowed_calls().collect();
        for refusal in refusals().unwrap() {
            for nr in refusal.rules.keys() {
                assert!(
                    allowed.contains(nr),
                    "call {nr} has rules but is not allowed"
                );
            }
        }
    }
}
