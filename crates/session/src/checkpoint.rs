//! A live session's journal, as its turns write it (the store is the journal crate's);
//! `checkpoint/for_turn.rs` makes it the turn's [`warden_turn::Journal`].
//!
//! The driver writes a record at each state change of a turn: the prompt, the model's
//! text, every conversation entry as it is added, a call when it is asked or about to
//! run, its answer and what became of it. The records of one step of the turn are staged
//! and go to the kernel together, in one `write` from the runtime's thread (like a log
//! line), before anything that depends on them: before a permission request is sent,
//! before a tool starts, and before the turn waits for its next event. A killed process
//! does not lose what reached the kernel; what must survive a power loss too (an
//! answer's claim) is written and synced on the blocking pool, and the call waits for it.

mod for_turn;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use warden_journal::{
    AnsweredBy, Claim, ClaimResult, Journal, Record, SessionStore, SessionStoreError, Spare, Taken,
    Unsynced,
};

/// The journal of one live session and the store it lives in. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Checkpoints {
    store: SessionStore,
    session: String,
    journal: Arc<Mutex<Journal>>,
    /// The calls of this session that may have answer files, by file name (see
    /// [`warden_journal::call_file_name`]), with the highest question number that may
    /// have one: those asked by this process, and those found in the answers folder when
    /// a stored session was opened. A new call whose id is not among them cannot have
    /// an old answer, so asking it costs no look at the disk.
    answerable: Arc<Mutex<HashMap<String, u32>>>,
    /// The journal is on disk as a file of its folder (synced once, with the session's
    /// first answer; a reopened journal was).
    synced: Arc<std::sync::atomic::AtomicBool>,
    /// Spare answer files made ahead of time, so that claiming an editor's answer
    /// creates no file on the protocol's thread (`store/claim.rs`).
    spares: Arc<Mutex<Spares>>,
}

#[derive(Debug, Default)]
struct Spares {
    ready: Vec<Spare>,
    making: bool,
}

/// How many spare answer files a session makes at once, when it has fewer than
/// [`SPARES_LOW`] left: made in batches, they are made rarely, and seldom while a turn
/// runs. The asked calls beyond them are claimed on the blocking pool, as when none is
/// ready.
const SPARES: usize = 8;
const SPARES_LOW: usize = 2;

/// Who owns a call once an answer tried to claim it.
#[derive(Debug)]
pub enum Owner {
    /// The answer that claimed it; with a claim still to sync before the call runs
    /// when it was made with a spare answer file.
    This(Option<Unsynced>),
    /// An earlier answer: this one is refused.
    First(Claim),
}

impl Owner {
    /// The `answered` record of the owner, when `claim` tried to claim the call.
    fn record(&self, claim: &Claim) -> Record {
        match self {
            Owner::This(_) => answered(claim),
            Owner::First(first) => answered(first),
        }
    }
}

/// The `answered` record of a claim.
pub fn answered(claim: &Claim) -> Record {
    Record::Answered(claim.record())
}

/// The earlier answer that owns a call; one that cannot be read is a denial.
fn first_answer(first: Option<Claim>, claim: &Claim) -> Claim {
    first.unwrap_or_else(|| Claim {
        option: warden_journal::UNREADABLE_CLAIM_OPTION.to_owned(),
        note: Some("the earlier answer could not be read".to_owned()),
        ..claim.clone()
    })
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Checkpoints {
    /// The journal of a new session: none of its calls has an answer yet.
    pub fn new(store: SessionStore, session: String, journal: Journal) -> Checkpoints {
        Checkpoints {
            store,
            session,
            journal: Arc::new(Mutex::new(journal)),
            answerable: Arc::default(),
            synced: Arc::default(),
            spares: Arc::default(),
        }
    }

    /// The journal of a stored session opened again, with the names of the files its
    /// answers folder held when it was loaded ([`warden_journal::LoadedSession`]).
    pub fn reopened(
        store: SessionStore,
        session: String,
        journal: Journal,
        answer_files: HashSet<String>,
    ) -> Checkpoints {
        let checkpoints = Checkpoints::new(store, session, journal);
        {
            let mut answerable = lock(&checkpoints.answerable);
            for name in &answer_files {
                if let Some((call, question)) = warden_journal::parse_answer_file_name(name) {
                    let max = answerable.entry(call.to_owned()).or_default();
                    *max = (*max).max(question);
                }
            }
        }
        checkpoints
            .synced
            .store(true, std::sync::atomic::Ordering::Relaxed);
        checkpoints
    }

    pub fn store(&self) -> &SessionStore {
        &self.store
    }

    /// Appends a record (after those staged). A failure is logged, not fatal: the
    /// session goes on, and what was not written is what a later load misses (a call
    /// about to run is written by [`Checkpoints::try_write`], whose failure stops the
    /// call).
    pub fn write(&self, record: &Record) {
        let mut journal = lock(&self.journal);
        self.logged(journal.stage(record));
        self.logged(journal.flush());
    }

    /// Stages a record, to be written with the next [`Checkpoints::flush`] or write.
    pub fn stage(&self, record: &Record) {
        self.logged(lock(&self.journal).stage(record));
    }

    /// Writes the staged records.
    pub fn flush(&self) {
        self.logged(lock(&self.journal).flush());
    }

    fn logged(&self, result: Result<(), SessionStoreError>) {
        if let Err(e) = result {
            tracing::warn!(session = %self.session, error = %e, "cannot write to the session's journal");
        }
    }

    /// Appends a record (after those staged), and says whether it was written: for the
    /// record whose failure must stop what it records (a call about to run).
    pub fn try_write(&self, record: &Record) -> Result<(), SessionStoreError> {
        lock(&self.journal).append(record)
    }

    /// Claims a call for an answer, durably, and journals the answer that owns it.
    /// Blocking (the claim is synced): call it from the blocking pool.
    pub fn claim(&self, claim: Claim) -> Result<Owner, SessionStoreError> {
        self.sync_once();
        let owner = match self.store.claim(&self.session, &claim)? {
            ClaimResult::Won => Owner::This(None),
            ClaimResult::Taken(first) => Owner::First(first_answer(first, &claim)),
        };
        self.write(&owner.record(&claim));
        Ok(owner)
    }

    /// Makes spare answer files on the blocking pool until the session has enough, unless
    /// that is already under way. Call it from the runtime; it does not wait.
    pub fn replenish(&self) {
        {
            let mut spares = lock(&self.spares);
            if spares.making || spares.ready.len() >= SPARES_LOW {
                return;
            }
            spares.making = true;
        }
        let this = self.clone();
        drop(tokio::task::spawn_blocking(move || {
            loop {
                if lock(&this.spares).ready.len() >= SPARES {
                    break;
                }
                match this.store.spare(&this.session) {
                    Ok(spare) => lock(&this.spares).ready.push(spare),
                    Err(e) => {
                        tracing::debug!(session = %this.session, error = %e, "cannot make a spare answer file");
                        break;
                    }
                }
            }
            lock(&this.spares).making = false;
        }));
    }

    /// Claims a call for an answer with a spare answer file, on the protocol's thread
    /// and without waiting for the disk, and stages the record of the answer that owns
    /// it; `None` when no spare is ready (then [`Checkpoints::claim`] does it on the
    /// blocking pool). When this answer wins, its claim must be synced
    /// ([`Checkpoints::make_durable`]) before its call runs.
    pub fn claim_now(&self, claim: &Claim) -> Option<Result<Owner, SessionStoreError>> {
        let spare = lock(&self.spares).ready.pop()?;
        let owner = match self.store.take(&self.session, claim, spare) {
            Err(e) => return Some(Err(e)),
            Ok(Taken::Won(unsynced)) => Owner::This(Some(unsynced)),
            Ok(Taken::Before(first, spare)) => {
                lock(&self.spares).ready.push(spare);
                Owner::First(first_answer(first, claim))
            }
        };
        self.stage(&owner.record(claim));
        Some(Ok(owner))
    }

    /// Puts a claim made by [`Checkpoints::claim_now`] on disk, with the session's
    /// journal the first time. Blocking: call it from the blocking pool.
    pub fn make_durable(&self, unsynced: Unsynced) -> Result<(), SessionStoreError> {
        self.sync_once();
        unsynced.sync()
    }

    /// Syncs the journal (what was written so far) to disk. Blocking: call it from the
    /// blocking pool. For an answer a restored session applies: the record that it was
    /// applied must outlive a power loss before its call runs, or a load after one would
    /// apply it again.
    pub fn sync_journal(&self) -> Result<(), SessionStoreError> {
        let durability = lock(&self.journal).durability();
        durability.and_then(|d| d.sync())
    }

    /// Syncs a new session's journal and its folder, once: a session in which someone
    /// answered survives a power loss too. Blocking. A failure is logged; the claim
    /// that follows is what guards the call.
    fn sync_once(&self) {
        if self.synced.swap(true, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let durability = lock(&self.journal).durability();
        if let Err(e) = durability.and_then(|d| d.sync()) {
            tracing::warn!(session = %self.session, error = %e, "cannot sync the session's journal to disk");
        }
    }

    /// The answer claimed from another terminal for question `question` about a call,
    /// if any: a stat of its file (and a read when it exists).
    pub fn claimed_elsewhere(&self, call: &str, question: u32) -> Option<Claim> {
        match self.store.claim_of(&self.session, call, question) {
            Ok(claim) => claim.filter(|c| c.by == AnsweredBy::Pending),
            Err(e) => {
                tracing::debug!(error = %e, "cannot look for an answer file");
                None
            }
        }
    }

    /// Drops the answer files of an earlier call with the same id (every question's),
    /// before a new call with that id is asked: an id is unique only within a reply,
    /// and an old answer must never answer a new call. Safe against `warden pending`,
    /// which only answers calls that were asked, and this one is not asked yet. Only an
    /// id that was asked before in this session (or had answers when it was opened) can
    /// have files.
    pub fn forget_old_answer(&self, call: &str) {
        let Some(questions) = lock(&self.answerable).remove(&warden_journal::call_file_name(call))
        else {
            return;
        };
        let Ok(dir) = self.store.answers_dir(&self.session) else {
            return;
        };
        for question in 1..=questions {
            let path = dir.join(warden_journal::answer_file_name(call, question));
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    tracing::warn!(file = %path.display(), error = %e, "cannot remove an old answer")
                }
            }
        }
    }

    /// Question `question` about the call is being asked: from now on it may have an
    /// answer file.
    pub fn asking(&self, call: &str, question: u32) {
        let mut answerable = lock(&self.answerable);
        let max = answerable
            .entry(warden_journal::call_file_name(call))
            .or_default();
        *max = (*max).max(question);
    }
}

#[cfg(test)]
mod tests {
    use super::Checkpoints;
    use warden_journal::{AnsweredBy, Claim, Header, SessionStore};

    fn claim(call: &str) -> Claim {
        Claim {
            call: call.into(),
            question: 1,
            option: "allow-once".into(),
            by: AnsweredBy::Pending,
            note: None,
            at_ms: 1,
        }
    }

    /// A call id the model uses again in a later reply must not inherit the answers given
    /// to the earlier call: its old answer files (every question's) are dropped before
    /// the new call is asked, whether the earlier call was asked by this process or
    /// before a restart.
    #[test]
    fn an_old_answer_never_answers_a_new_call_with_the_same_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SessionStore::open(dir.path().join("sessions")).expect("open");
        let header = Header {
            id: "s1".into(),
            cwd: "/p".into(),
            created_ms: 0,
            model: "scripted".into(),
            mode: "ask".into(),
            title: None,
        };
        let journal = store.create(&header).expect("create");
        let live = Checkpoints::new(store.clone(), "s1".into(), journal);
        live.asking("call_1", 2);
        live.claim(claim("call_1")).expect("claim");
        live.claim(Claim {
            question: 2,
            ..claim("call_1")
        })
        .expect("claim");
        store.claim("s1", &claim("call_2")).expect("claim");
        store
            .claim(
                "s1",
                &Claim {
                    question: 3,
                    ..claim("call_2")
                },
            )
            .expect("claim");
        live.forget_old_answer("call_1");
        assert_eq!(store.claim_of("s1", "call_1", 1).expect("look"), None);
        assert_eq!(store.claim_of("s1", "call_1", 2).expect("look"), None);
        drop(live);

        let journal = store.reopen("s1").expect("reopen");
        let answer_files = store.load("s1").expect("load").answer_files;
        let reopened = Checkpoints::reopened(store.clone(), "s1".into(), journal, answer_files);
        assert!(store.claim_of("s1", "call_2", 3).expect("look").is_some());
        reopened.forget_old_answer("call_2");
        assert_eq!(store.claim_of("s1", "call_2", 1).expect("look"), None);
        assert_eq!(store.claim_of("s1", "call_2", 3).expect("look"), None);
    }
}
