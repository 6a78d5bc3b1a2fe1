//! leveldb's objects over this library's policies: made by leveldb's
//! `leveldb_filterpolicy_create` over the callbacks here, registered for every function to find
//! the policy behind (see the invariants in mod.rs).

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use super::{LeveldbCApi, Link, loaded, registry};
use crate::ffi::checks::into_raw;
use crate::ffi::filterpolicy::{
    self, is_bloom, leveldb_bloom_create_filter_fn, leveldb_bloom_destructor_fn,
    leveldb_bloom_filterpolicy_t, leveldb_bloom_key_may_match_fn, leveldb_bloom_name_fn,
};
use crate::ffi::filterpolicy_create_filter::leveldb_bloom_filterpolicy_create_filter;
use crate::ffi::filterpolicy_key_may_match::leveldb_bloom_filterpolicy_key_may_match;
use crate::no_unwind::ffi_boundary;

/// leveldb's `leveldb_filterpolicy_create`, as leveldb/c.h declares it: C++, so declared able to
/// unwind.
pub(super) type CreateFn = unsafe extern "C-unwind" fn(
    state: *mut c_void,
    destructor: leveldb_bloom_destructor_fn,
    create_filter: leveldb_bloom_create_filter_fn,
    key_may_match: leveldb_bloom_key_may_match_fn,
    name: leveldb_bloom_name_fn,
) -> *mut c_void;

/// `policy` (from `leveldb_bloom_filterpolicy_create_bloom` or `_create`, or NULL), as a
/// `leveldb_filterpolicy_t`: where leveldb's C API is loaded, an object of leveldb's
/// wrapping it, which leveldb can use and every function here takes for it; elsewhere `policy`
/// itself. NULL if memory runs out, and then a custom policy's destructor does not run.
///
/// # Safety
/// `policy` must be NULL or a policy just made, handed to no one else.
pub(crate) unsafe fn for_leveldb(policy: *mut leveldb_bloom_filterpolicy_t) -> *mut c_void {
    if policy.is_null() {
        return ptr::null_mut();
    }
    let made = match loaded::leveldb_c_api() {
        Ok(None) => return policy.cast(),
        // SAFETY: per the contract.
        Ok(Some(leveldb)) => unsafe { wrap(policy, leveldb) },
        Err(_) => ptr::null_mut(),
    };
    if made.is_null() {
        // SAFETY: made just now and handed to no one (per the contract).
        unsafe { filterpolicy::discard(policy) };
    }
    made
}

/// leveldb's object over `policy`, registered; NULL if memory runs out.
///
/// # Safety
/// As [`for_leveldb`].
unsafe fn wrap(
    policy: *mut leveldb_bloom_filterpolicy_t,
    leveldb: &'static LeveldbCApi,
) -> *mut c_void {
    let Some(slot) = registry::reserve() else {
        return ptr::null_mut();
    };
    let link = into_raw(Link {
        policy: policy.cast(),
        outer: ptr::null_mut(),
        leveldb,
    });
    if link.is_null() {
        return ptr::null_mut();
    }
    // No lock is held here (see the module's doc).
    // SAFETY: leveldb's `leveldb_filterpolicy_create`, of the type c.h declares (erased in
    // mod.rs), with the arguments c.h declares; it only stores them.
    let outer = unsafe {
        std::mem::transmute::<super::ErasedFn, CreateFn>(leveldb.create)(
            link.cast(),
            Some(destroy_for_leveldb),
            Some(create_filter_for_leveldb),
            Some(key_may_match_for_leveldb),
            Some(name_for_leveldb),
        )
    };
    if outer.is_null() {
        // SAFETY: from `into_raw` above, and leveldb did not keep it.
        drop(unsafe { Box::from_raw(link) });
        return ptr::null_mut();
    }
    // SAFETY: from `into_raw` above; leveldb calls nothing with it before the object is handed
    // out.
    unsafe { (*link).outer = outer };
    // SAFETY: this library's policy, live.
    let bloom = unsafe { is_bloom(policy) };
    slot.register(outer, policy.cast(), bloom, link);
    outer
}

/// The destructor of leveldb's object: forgets it, and destroys the policy behind it.
unsafe extern "C" fn destroy_for_leveldb(state: *mut c_void) {
    ffi_boundary!((), {
        let link = state.cast::<Link>();
        // SAFETY: `state` is the link the object was made with, from `into_raw`, freed once:
        // here, as leveldb calls this once.
        let link = unsafe { Box::from_raw(link) };
        registry::forget(link.outer);
        // SAFETY: the policy the object wrapped, destroyed with it.
        unsafe { filterpolicy::destroy(link.policy.cast()) }
    })
}

/// The policy behind the state leveldb's callbacks are given.
///
/// # Safety
/// `state` must be the link of a live object of leveldb's.
unsafe fn policy_of(state: *mut c_void) -> *mut leveldb_bloom_filterpolicy_t {
    // SAFETY: per the contract.
    unsafe { (*state.cast::<Link>()).policy.cast() }
}

/// leveldb's `CreateFilter`, into the `std::string` it appends the filter to.
unsafe extern "C" fn create_filter_for_leveldb(
    state: *mut c_void,
    key_array: *const *const c_char,
    key_length_array: *const usize,
    num_keys: c_int,
    filter_length: *mut usize,
) -> *mut c_char {
    // SAFETY: leveldb calls it with the state of its live object.
    let policy = unsafe { policy_of(state) };
    // SAFETY: the live policy the object wraps; leveldb's arrays hold `num_keys` keys.
    let filter = unsafe {
        leveldb_bloom_filterpolicy_create_filter(
            policy,
            key_array,
            key_length_array,
            num_keys,
            filter_length,
        )
    };
    // The bloom policy fails only when memory runs out. leveldb would store the empty filter,
    // which matches no key, and lose the table's keys: stop, as leveldb's own code does then.
    // SAFETY: as above.
    if filter.is_null() && unsafe { is_bloom(policy) } {
        let message = b"leveldb-bloom: out of memory building a filter for leveldb\n";
        let _ = std::io::Write::write_all(&mut std::io::stderr(), message);
        std::process::abort();
    }
    filter
}

/// leveldb's `KeyMayMatch`.
unsafe extern "C" fn key_may_match_for_leveldb(
    state: *mut c_void,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    // SAFETY: leveldb calls it with the state of its live object, and its key and filter.
    unsafe {
        leveldb_bloom_filterpolicy_key_may_match(
            policy_of(state),
            key,
            length,
            filter,
            filter_length,
        )
    }
}

/// leveldb's `Name`.
unsafe extern "C" fn name_for_leveldb(state: *mut c_void) -> *const c_char {
    ffi_boundary!(ptr::null(), {
        // SAFETY: leveldb calls it with the state of its live object.
        unsafe { filterpolicy::name(policy_of(state)) }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::super::{bloom_at_home, policy_behind};
    use super::*;
    use crate::ffi::filterpolicy::{
        leveldb_bloom_filterpolicy_create_bloom, leveldb_bloom_filterpolicy_name,
    };
    use crate::ffi::filterpolicy_key_may_match::{
        key_may_match_leveldb_first, leveldb_bloom_filterpolicy_key_may_match,
        leveldb_bloom_filterpolicy_key_may_match_batch,
    };

    /// A stand-in for an object of leveldb's C API: a vtable pointer, then the state and the
    /// destructor its `leveldb_filterpolicy_create` was given.
    struct StandIn {
        _vtable: usize,
        state: *mut c_void,
        destructor: leveldb_bloom_destructor_fn,
    }

    static VTABLE: [usize; 4] = [0; 4];

    unsafe extern "C-unwind" fn create(
        state: *mut c_void,
        destructor: leveldb_bloom_destructor_fn,
        _: leveldb_bloom_create_filter_fn,
        _: leveldb_bloom_key_may_match_fn,
        _: leveldb_bloom_name_fn,
    ) -> *mut c_void {
        let object = StandIn {
            _vtable: ptr::from_ref(&VTABLE).addr(),
            state,
            destructor,
        };
        Box::into_raw(Box::new(object)).cast()
    }

    unsafe extern "C-unwind" fn destroy(object: *mut c_void) {
        // SAFETY: every stand-in is a Box the test made, destroyed once, here.
        let object = unsafe { Box::from_raw(object.cast::<StandIn>()) };
        // SAFETY: the destructor it was made with, and its state.
        unsafe { object.destructor.unwrap()(object.state) };
    }

    static LEVELDB: LeveldbCApi = LeveldbCApi {
        // SAFETY: called back as a `CreateFn`, which it is.
        create: unsafe { std::mem::transmute::<CreateFn, super::super::ErasedFn>(create) },
        destroy,
        loaded_at: 0,
    };

    /// An object of the stand-in leveldb over a new bloom policy of this library.
    fn wrapped(bits_per_key: c_int) -> *mut c_void {
        let policy = leveldb_bloom_filterpolicy_create_bloom(bits_per_key);
        // SAFETY: a policy just made, handed to no one else.
        let outer = unsafe { wrap(policy, &LEVELDB) };
        assert!(!outer.is_null());
        outer
    }

    /// The answer through `outer` for `key`, by the single query under either name and the batch,
    /// which must agree.
    fn answer(outer: *mut c_void, key: &[u8], filter: &[u8]) -> u8 {
        let policy = outer.cast_const().cast();
        let mut batch = [7u8];
        // SAFETY: a live object, key and filter, with their lengths.
        let [single, by_leveldb_name] = unsafe {
            leveldb_bloom_filterpolicy_key_may_match_batch(
                policy,
                [key.as_ptr().cast()].as_ptr(),
                &key.len(),
                1,
                filter.as_ptr().cast(),
                filter.len(),
                batch.as_mut_ptr(),
            );
            [
                leveldb_bloom_filterpolicy_key_may_match,
                key_may_match_leveldb_first,
            ]
            .map(|query| {
                query(
                    policy,
                    key.as_ptr().cast(),
                    key.len(),
                    filter.as_ptr().cast(),
                    filter.len(),
                )
            })
        };
        assert_eq!([single, by_leveldb_name], [batch[0]; 2]);
        single
    }

    /// An object's address, for the test's threads.
    #[derive(Clone, Copy)]
    struct Outer(*mut c_void);
    // SAFETY: the objects are only used as the library allows any thread to.
    unsafe impl Send for Outer {}
    // SAFETY: as for Send.
    unsafe impl Sync for Outer {}

    // Runs under `cargo miri test`, which checks its threads for data races: objects found behind
    // by both queries while others are made and destroyed, through tables replaced as they fill
    // and with the single query's index full (some found in it, some only in the table); foreign
    // ones never; an address used again finds the object now there.
    #[test]
    fn objects_are_found_until_destroyed_while_others_come_and_go() {
        // A filter of k = 1 with the one bit "present" sets: an answer 0 comes from a bloom
        // policy of this library's, 1 for a key it rules out from bad input.
        let bit = |key: &[u8]| (crate::hash::bloom_hash(key) % 64) as usize;
        let mut filter = [0u8; 9];
        filter[bit(b"present") / 8] |= 1 << (bit(b"present") % 8);
        filter[8] = 1;
        let absent = (0..)
            .map(|i| format!("absent-{i}"))
            .find(|key| filter[bit(key.as_bytes()) / 8] & (1 << (bit(key.as_bytes()) % 8)) == 0)
            .unwrap();

        let kept: Vec<Outer> = (0..4).map(|_| Outer(wrapped(10))).collect();
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| {
                    while !done.load(Ordering::Relaxed) {
                        for &Outer(outer) in &kept {
                            assert_eq!(answer(outer, b"present", &filter), 1);
                            assert_eq!(answer(outer, absent.as_bytes(), &filter), 0);
                        }
                    }
                });
            }
            // Enough to replace the table a few times, and more than the single query's index has
            // entries, so that some share one.
            let made: Vec<*mut c_void> = (0..=registry::HOMES as c_int)
                .map(|i| wrapped(i % 20))
                .collect();
            let away: Vec<_> = made
                .iter()
                .filter(|&&outer| !bloom_at_home(outer))
                .collect();
            assert!(!away.is_empty());
            for &&outer in &away {
                assert_eq!(answer(outer, b"present", &filter), 1);
                assert_eq!(answer(outer, absent.as_bytes(), &filter), 0);
            }
            for outer in made {
                // SAFETY: a stand-in object made above, destroyed once.
                unsafe { destroy(outer) };
                assert!(policy_behind(outer).is_none() && !bloom_at_home(outer));
            }
            done.store(true, Ordering::Relaxed);
        });

        // Not an object the registry knows: bad input.
        let foreign = StandIn {
            _vtable: ptr::from_ref(&VTABLE).addr(),
            state: ptr::null_mut(),
            destructor: None,
        };
        let foreign = ptr::from_ref(&foreign).cast_mut().cast::<c_void>();
        assert!(policy_behind(foreign).is_none());
        assert_eq!(answer(foreign, absent.as_bytes(), &filter), 1);

        for Outer(outer) in kept {
            // SAFETY: a live object.
            assert!(!unsafe { leveldb_bloom_filterpolicy_name(outer.cast()) }.is_null());
            // SAFETY: a stand-in object made above, destroyed once.
            unsafe { destroy(outer) };
            assert!(policy_behind(outer).is_none());
        }

        // An address used again once its object is forgotten: the object now there.
        let address = ptr::from_ref(&filter).cast_mut().cast::<c_void>();
        let policies = [1u8, 2].map(|b| ptr::from_ref(&filter[b as usize]).cast_mut().cast());
        for policy in policies {
            let link = into_raw(Link {
                policy,
                outer: address,
                leveldb: &LEVELDB,
            });
            registry::reserve()
                .unwrap()
                .register(address, policy, false, link);
            assert_eq!(policy_behind(address), Some(policy.cast_const()));
            registry::forget(address);
            // SAFETY: from into_raw above, no longer registered.
            drop(unsafe { Box::from_raw(link) });
        }
        assert!(policy_behind(address).is_none());
    }
}
