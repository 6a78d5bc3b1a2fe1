//! Which of this library's policies each of leveldb's objects wraps, by the object's address:
//! read by every call given such an object with atomic loads only (no lock, no write), written
//! under one lock when an object is made, destroyed or forgotten.
//!
//! An open-addressing table of slots, each empty or holding an object's address, the policy
//! behind it and its [`Link`]. Why a reader needs no lock:
//! - A slot's fields are written before its address (release), and read after it (acquire): a
//!   reader that finds an address finds that object's policy.
//! - An object's slot is filled before the object is handed out, and emptied by its destructor,
//!   which must not run while the object is used: a reader looking for an object it may use finds
//!   it in place, whatever other slots are filled or emptied meanwhile.
//! - A lookup looks at most [`Table::longest`] slots past an address's home slot, the farthest
//!   any insert went: it needs no empty slot to stop at, and empty slots may be filled again.
//! - An address is used again only once its object is destroyed, its slot emptied before its
//!   memory is freed: the new object gets a slot of its own, and a pointer to the old one, used
//!   after its destroy (the caller's error), finds the new object, which is what lies there.
//! - A table half full is replaced by a larger copy. The old one stays allocated, as a reader may
//!   still be in it, where it finds the objects it may use (none is destroyed meanwhile, and one
//!   made later is looked for in the new table). Each is at least twice its predecessor, so
//!   together they take less than the current one.
//!
//! The single query looks in a smaller index first, [`BLOOM_HOMES`]: one load from a fixed
//! place, where the table's lookup takes five. It holds the objects wrapping a bloom policy, each
//! in its entry if no other took it first, entered after the table's slot and removed with it;
//! an object not there is found in the table, on the query's slower path.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicPtr, AtomicUsize};
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::Link;
use crate::ffi::checks::into_raw;

/// An empty slot's address: no object's.
const EMPTY: usize = 0;

#[derive(Default)]
struct Slot {
    /// The object's address, or [`EMPTY`].
    outer: AtomicUsize,
    /// The address of this library's policy behind it: what readers want.
    policy: AtomicPtr<c_void>,
    /// What made it: what the writers want.
    link: AtomicPtr<Link>,
}

struct Table {
    /// A power of two of them.
    slots: Box<[Slot]>,
    /// How far an address's home slot is shifted: the top bits of a product (Fibonacci hashing),
    /// which spreads addresses spaced by any power of two.
    shift: u32,
    /// How far past its home slot any address was put: lookups look no farther.
    longest: AtomicUsize,
}

impl Table {
    /// A table of `len` empty slots (a power of two, 2 or more); `None` if memory runs out.
    fn new(len: usize) -> Option<Table> {
        let mut slots = Vec::new();
        slots.try_reserve_exact(len).ok()?;
        slots.resize_with(len, Slot::default);
        Some(Table {
            slots: slots.into_boxed_slice(),
            shift: usize::BITS - len.trailing_zeros(),
            longest: AtomicUsize::new(0),
        })
    }

    /// The slot `distance` past `outer`'s home slot.
    #[inline(always)]
    fn slot(&self, outer: usize, distance: usize) -> &Slot {
        let home = spread(outer) >> self.shift;
        let index = home.wrapping_add(distance) & (self.slots.len() - 1);
        // SAFETY: masked by the length less one, a power of two less one: below the length. No
        // bounds check, whose panic would give the single query a landing pad.
        unsafe { self.slots.get_unchecked(index) }
    }

    /// The slot holding `outer`.
    #[inline(always)]
    fn find(&self, outer: usize) -> Option<&Slot> {
        (0..=self.longest.load(Relaxed))
            .map(|distance| self.slot(outer, distance))
            .find(|slot| slot.outer.load(Acquire) == outer)
    }

    /// Puts `outer` in the first empty slot from its home. There is one: the writer keeps the
    /// table at most half full.
    fn put(&self, outer: usize, policy: *mut c_void, link: *mut Link) {
        let Some(distance) = (0..self.slots.len())
            .find(|&distance| self.slot(outer, distance).outer.load(Relaxed) == EMPTY)
        else {
            unreachable!("a table at most half full has an empty slot");
        };
        let slot = self.slot(outer, distance);
        self.longest.fetch_max(distance, Relaxed);
        slot.policy.store(policy, Relaxed);
        slot.link.store(link, Relaxed);
        slot.outer.store(outer, Release);
    }

    fn filled(&self) -> impl Iterator<Item = &Slot> {
        self.slots
            .iter()
            .filter(|slot| slot.outer.load(Relaxed) != EMPTY)
    }
}

/// An address's bits mixed into the top ones (Fibonacci hashing), which spreads addresses spaced
/// by any power of two: the top bits pick a slot.
#[inline(always)]
fn spread(outer: usize) -> usize {
    outer.wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as usize)
}

/// How many entries [`BLOOM_HOMES`] has: a power of two, enough for the few policies a program
/// makes to rarely share one.
pub(super) const HOMES: usize = 128;

/// The single query's index: entry `i` holds the address of an object wrapping a bloom policy
/// whose home is `i`, or [`EMPTY`]. Written under the writers' lock, after the object's slot in
/// the table and before it is emptied.
static BLOOM_HOMES: [AtomicUsize; HOMES] = [const { AtomicUsize::new(EMPTY) }; HOMES];

/// The entry of [`BLOOM_HOMES`] for `outer`.
#[inline(always)]
fn bloom_home(outer: usize) -> &'static AtomicUsize {
    &BLOOM_HOMES[spread(outer) >> (usize::BITS - HOMES.trailing_zeros())]
}

/// Takes `outer` out of [`BLOOM_HOMES`], if it is there: it is being forgotten.
fn leave_bloom_home(outer: usize) {
    let home = bloom_home(outer);
    if home.load(Relaxed) == outer {
        home.store(EMPTY, Relaxed);
    }
}

/// The table readers look in; NULL before the first object. Allocated by `into_raw`, as a Box.
static CURRENT: AtomicPtr<Table> = AtomicPtr::new(ptr::null_mut());

/// The writers' side, behind the lock.
struct Writer {
    /// Objects in the current table.
    live: usize,
    /// Slots promised to objects being made (see [`Reservation`]).
    reserved: usize,
    /// Tables replaced by a larger one, kept for readers that may still be in them: by address,
    /// as a Box would claim them unique while readers borrow them.
    replaced: Vec<*mut Table>,
    /// The links of objects forgotten as their leveldb is gone, kept with the policies behind
    /// them: a query may still be using one, and leveldb's destroy, which would free them, can
    /// no longer run.
    orphans: Vec<*mut Link>,
}

// SAFETY: the links and tables are only held, never used, here.
unsafe impl Send for Writer {}

static WRITER: Mutex<Writer> = Mutex::new(Writer {
    live: 0,
    reserved: 0,
    replaced: Vec::new(),
    orphans: Vec::new(),
});

fn writer() -> MutexGuard<'static, Writer> {
    WRITER.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Writer {
    /// The current table (the lock held, nothing replaces it meanwhile). No table is ever freed.
    fn table(&self) -> Option<&'static Table> {
        // SAFETY: CURRENT is NULL or a table from Box::into_raw, never freed (one replaced is
        // kept in `replaced`).
        unsafe { CURRENT.load(Acquire).as_ref() }
    }
}

/// Whether leveldb's object `outer` is in [`BLOOM_HOMES`], which holds objects wrapping a bloom
/// policy of this library: the single query's check, which reads nothing of `outer` and calls
/// nothing. `false` for NULL and for any live object not leveldb's; an object not in the index
/// is found by [`policy_behind`].
#[inline(always)]
pub(crate) fn bloom_at_home(outer: *const c_void) -> bool {
    // Relaxed: nothing is read behind the entry.
    outer.addr() != EMPTY && bloom_home(outer.addr()).load(Relaxed) == outer.addr()
}

/// The policy behind leveldb's object `outer`, if the registry knows it: with atomic loads only,
/// for queries, which take no lock and ask nothing of the loader.
#[inline(always)]
pub(crate) fn policy_behind(outer: *const c_void) -> Option<*const c_void> {
    // SAFETY: CURRENT is NULL or a table from Box::into_raw, never freed.
    let table = unsafe { CURRENT.load(Acquire).as_ref() }?;
    let slot = table.find(outer.addr())?;
    Some(slot.policy.load(Relaxed).cast_const())
}

/// A slot kept free for an object being made, so that leveldb's constructor runs with no lock
/// held and the object it makes can always be registered. Dropped unused, it frees the slot.
pub(super) struct Reservation(());

/// A slot for one more object; `None` if memory runs out for a larger table.
pub(super) fn reserve() -> Option<Reservation> {
    let mut writer = writer();
    let needed = writer.live + writer.reserved + 1;
    let len = writer.table().map_or(0, |table| table.slots.len());
    // At most half full, so that every address lies near its home.
    if needed * 2 > len {
        writer.replaced.try_reserve(1).ok()?;
        let larger = Table::new((needed * 4).next_power_of_two())?;
        let larger = into_raw(larger);
        if larger.is_null() {
            return None;
        }
        // SAFETY: made just now, and not shared until published below.
        let larger_ref = unsafe { &*larger };
        if let Some(table) = writer.table() {
            for slot in table.filled() {
                larger_ref.put(
                    slot.outer.load(Relaxed),
                    slot.policy.load(Relaxed),
                    slot.link.load(Relaxed),
                );
            }
        }
        let old = CURRENT.swap(larger, Release);
        if !old.is_null() {
            writer.replaced.push(old);
        }
    }
    writer.reserved += 1;
    Some(Reservation(()))
}

impl Reservation {
    /// Registers leveldb's object `outer` as wrapping `policy` (a bloom policy if `bloom`), made
    /// by `link`.
    pub(super) fn register(
        self,
        outer: *mut c_void,
        policy: *mut c_void,
        bloom: bool,
        link: *mut Link,
    ) {
        let mut writer = writer();
        let table = writer.table().expect("a reservation has a table");
        table.put(outer.addr(), policy, link);
        let home = bloom_home(outer.addr());
        if bloom && home.load(Relaxed) == EMPTY {
            home.store(outer.addr(), Relaxed);
        }
        writer.live += 1;
        // The slot is used: `drop` must not free it again.
        writer.reserved -= 1;
        std::mem::forget(self);
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        writer().reserved -= 1;
    }
}

/// Forgets leveldb's object `outer`: it is being destroyed.
pub(super) fn forget(outer: *mut c_void) {
    let mut writer = writer();
    if let Some(slot) = writer.table().and_then(|table| table.find(outer.addr())) {
        leave_bloom_home(outer.addr());
        slot.outer.store(EMPTY, Relaxed);
        writer.live -= 1;
    }
}

/// Forgets every object whose link `gone` says is gone, keeping their links.
pub(super) fn forget_where(gone: impl Fn(&Link) -> bool) {
    let mut writer = writer();
    let Some(table) = writer.table() else { return };
    // Kept whatever the count: what cannot be held is left allocated all the same.
    let mut orphans = std::mem::take(&mut writer.orphans);
    for slot in table.filled() {
        let link = slot.link.load(Relaxed);
        // SAFETY: a registered object's link lives as long as the object is registered.
        if gone(unsafe { &*link }) {
            leave_bloom_home(slot.outer.load(Relaxed));
            slot.outer.store(EMPTY, Relaxed);
            writer.live -= 1;
            if orphans.try_reserve(1).is_ok() {
                orphans.push(link);
            }
        }
    }
    writer.orphans = orphans;
}

/// The link leveldb's object `outer` was made by, if the registry knows it.
pub(super) fn link_of(outer: *mut c_void) -> Option<*mut Link> {
    let writer = writer();
    let slot = writer.table()?.find(outer.addr())?;
    Some(slot.link.load(Relaxed))
}
