//! Target `c_api`: a script of C calls with arbitrary argument shapes (NULL pointers, negative
//! and short counts, NULL keys with lengths, unknown policies, custom callback policies with
//! callbacks missing), each required to give the result the header documents. Valid calls must
//! give the oracle's filter and answer; bad input must never reach a custom callback.
//!
//! Pointers are only ever NULL or valid: a wild pointer is undefined behaviour by the contract,
//! and no library can detect it.

use std::cell::Cell;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr;

use leveldb_bloom::ffi::{
    leveldb_filterpolicy_create, leveldb_filterpolicy_create_bloom,
    leveldb_filterpolicy_create_filter, leveldb_filterpolicy_destroy,
    leveldb_filterpolicy_key_may_match, leveldb_filterpolicy_name, leveldb_filterpolicy_t,
    leveldb_free,
};
use leveldb_bloom::{BloomPolicy, POLICY_NAME, key_may_match};

use crate::{Reader, agreed_answer, agreed_filter};

/// The bits per key of the filters the custom callbacks build.
const CUSTOM_BITS: u32 = 7;
const CUSTOM_NAME: &CStr = c"fuzz.CustomPolicy";
/// More keys, filters or steps than this explore nothing new.
const MAX_KEYS: usize = 8;
const MAX_FILTERS: usize = 8;
const MAX_STEPS: usize = 64;

/// What a custom policy's callbacks were asked to do; the policy's `state`.
#[derive(Default)]
struct Calls {
    create: Cell<usize>,
    matches: Cell<usize>,
    names: Cell<usize>,
    destroyed: Cell<usize>,
}

/// # Safety
/// `state` is a live `Calls`.
unsafe fn calls<'a>(state: *mut c_void) -> &'a Calls {
    unsafe { &*state.cast::<Calls>() }
}

/// A C argument the library has accepted: NULL only with length 0.
unsafe fn accepted<'a>(ptr: *const c_char, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(ptr.cast(), len) }
    }
}

/// Builds the oracle's filter at [`CUSTOM_BITS`], in a malloc'ed buffer as leveldb requires.
unsafe extern "C" fn custom_create(
    state: *mut c_void,
    keys: *const *const c_char,
    lengths: *const usize,
    num_keys: c_int,
    filter_length: *mut usize,
) -> *mut c_char {
    let calls = unsafe { calls(state) };
    calls.create.set(calls.create.get() + 1);
    let n = usize::try_from(num_keys).expect("a negative count reached the callback");
    let keys: Vec<&[u8]> = (0..n)
        .map(|i| unsafe { accepted(*keys.add(i), *lengths.add(i)) })
        .collect();
    let mut filter = Vec::new();
    BloomPolicy::new(CUSTOM_BITS).create_filter(&keys, &mut filter);
    let out = unsafe { libc::malloc(filter.len()) }.cast::<u8>();
    assert!(!out.is_null());
    unsafe {
        out.copy_from_nonoverlapping(filter.as_ptr(), filter.len());
        *filter_length = filter.len();
    }
    out.cast()
}

/// Answers as the oracle, but with 2 for "may match": the library must report it as 1.
unsafe extern "C" fn custom_match(
    state: *mut c_void,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    let calls = unsafe { calls(state) };
    calls.matches.set(calls.matches.get() + 1);
    let (key, filter) = unsafe { (accepted(key, length), accepted(filter, filter_length)) };
    if key_may_match(key, filter) { 2 } else { 0 }
}

unsafe extern "C" fn custom_name(state: *mut c_void) -> *const c_char {
    let calls = unsafe { calls(state) };
    calls.names.set(calls.names.get() + 1);
    CUSTOM_NAME.as_ptr()
}

unsafe extern "C" fn custom_destroy(state: *mut c_void) {
    let calls = unsafe { calls(state) };
    calls.destroyed.set(calls.destroyed.get() + 1);
}

enum Kind {
    Bloom(u32),
    Custom { calls: Box<Calls>, destructor: bool },
}

struct Policy {
    raw: *mut leveldb_filterpolicy_t,
    kind: Kind,
}

/// The live objects of one script.
#[derive(Default)]
struct Script {
    policies: Vec<Policy>,
    /// malloc'ed filters from create_filter.
    filters: Vec<(*mut c_char, usize)>,
}

impl Script {
    /// A policy chosen by the input, or `None` for a NULL policy.
    fn pick(&self, input: &mut Reader<'_>) -> Option<usize> {
        let choice = usize::from(input.u8());
        (choice != 255 && !self.policies.is_empty()).then(|| choice % self.policies.len())
    }

    fn raw(&self, choice: Option<usize>) -> *mut leveldb_filterpolicy_t {
        choice.map_or(ptr::null_mut(), |i| self.policies[i].raw)
    }

    fn create_bloom(&mut self, input: &mut Reader<'_>) {
        let arg = input.i32();
        // Large filters are slow and tested in tests/: fold big positive values down.
        let bits_per_key = if arg < 0 { arg } else { arg % 4097 };
        let raw = leveldb_filterpolicy_create_bloom(bits_per_key);
        match u32::try_from(bits_per_key) {
            Err(_) => assert!(raw.is_null(), "create_bloom({bits_per_key}) is not NULL"),
            Ok(bits) => {
                assert!(!raw.is_null(), "create_bloom({bits}) is NULL");
                self.policies.push(Policy {
                    raw,
                    kind: Kind::Bloom(bits),
                });
            }
        }
    }

    fn create_custom(&mut self, input: &mut Reader<'_>) {
        let which = input.u8();
        let calls = Box::new(Calls::default());
        let destructor = which & 8 == 0;
        let complete = which & 7 == 0;
        let raw = leveldb_filterpolicy_create(
            ptr::from_ref(&*calls).cast_mut().cast(),
            destructor.then_some(custom_destroy as unsafe extern "C" fn(*mut c_void)),
            (which & 1 == 0).then_some(custom_create as _),
            (which & 2 == 0).then_some(custom_match as _),
            (which & 4 == 0).then_some(custom_name as _),
        );
        assert_eq!(raw.is_null(), !complete, "create with callbacks {which:#x}");
        assert_eq!(
            calls.destroyed.get(),
            0,
            "a refused policy ran its destructor"
        );
        if complete {
            self.policies.push(Policy {
                raw,
                kind: Kind::Custom { calls, destructor },
            });
        }
    }

    fn create_filter(&mut self, input: &mut Reader<'_>) {
        let policy = self.pick(input);
        let shape = input.u8();
        let available = usize::from(input.u8()) % (MAX_KEYS + 1);
        // Each key is real bytes, or NULL with a length of 0 (the empty key) or more (bad).
        let keys: Vec<(*const c_char, usize)> = (0..available)
            .map(|_| {
                if input.u8() & 1 == 1 {
                    (ptr::null(), usize::from(input.u8() % 3))
                } else {
                    let key = input.bytes();
                    (key.as_ptr().cast(), key.len())
                }
            })
            .collect();
        let num_keys: c_int = match input.u8() % 4 {
            0 => available as c_int,
            1 => c_int::from(input.u8()) % (available as c_int + 1),
            2 => -1 - c_int::from(input.u8()),
            _ => c_int::MIN,
        };
        let ptrs: Vec<*const c_char> = keys.iter().map(|k| k.0).collect();
        let lens: Vec<usize> = keys.iter().map(|k| k.1).collect();
        let key_array = if shape & 1 == 1 {
            ptr::null()
        } else {
            ptrs.as_ptr()
        };
        let length_array = if shape & 2 == 2 {
            ptr::null()
        } else {
            lens.as_ptr()
        };
        let mut len = 12345;
        let len_out = if shape & 4 == 4 {
            ptr::null_mut()
        } else {
            &raw mut len
        };

        let used = usize::try_from(num_keys).map_or(&[][..], |n| &keys[..n]);
        let valid = policy.is_some()
            && !len_out.is_null()
            && num_keys >= 0
            && (num_keys == 0
                || (!key_array.is_null()
                    && !length_array.is_null()
                    && used.iter().all(|&(p, l)| !p.is_null() || l == 0)));
        let creates_before = self.custom_calls(policy).map_or(0, |c| c.create.get());
        // SAFETY: non-NULL arrays hold `available` >= num_keys entries of live keys.
        let filter = unsafe {
            leveldb_filterpolicy_create_filter(
                self.raw(policy),
                key_array,
                length_array,
                num_keys,
                len_out,
            )
        };
        if !valid {
            assert!(
                filter.is_null(),
                "bad create_filter arguments gave a filter"
            );
            assert!(
                len_out.is_null() || len == 0,
                "length {len} after bad input"
            );
            assert_eq!(
                self.custom_calls(policy).map_or(0, |c| c.create.get()),
                creates_before,
                "bad input reached a callback"
            );
            return;
        }
        assert!(!filter.is_null(), "valid create_filter arguments gave NULL");
        // SAFETY: accepted arguments are NULL only with length 0.
        let used: Vec<&[u8]> = used
            .iter()
            .map(|&(p, l)| unsafe { accepted(p, l) })
            .collect();
        let expected = match &self.policies[policy.unwrap()].kind {
            Kind::Bloom(bits) => agreed_filter(*bits, &used),
            Kind::Custom { calls, .. } => {
                assert_eq!(calls.create.get(), creates_before + 1);
                agreed_filter(CUSTOM_BITS, &used)
            }
        };
        // SAFETY: a non-NULL filter holds `len` bytes.
        assert!(unsafe { std::slice::from_raw_parts(filter.cast::<u8>(), len) } == expected);
        if self.filters.len() == MAX_FILTERS {
            let (oldest, _) = self.filters.remove(0);
            unsafe { leveldb_free(oldest.cast()) };
        }
        self.filters.push((filter, len));
    }

    /// A custom policy's call counts; `None` for NULL or a bloom policy.
    fn custom_calls(&self, policy: Option<usize>) -> Option<&Calls> {
        match policy.map(|i| &self.policies[i].kind) {
            Some(Kind::Custom { calls, .. }) => Some(calls),
            _ => None,
        }
    }

    fn key_may_match(&self, input: &mut Reader<'_>) {
        let policy = self.pick(input);
        let key_shape = input.u8();
        let key = input.bytes();
        let (key_ptr, key_len) = if key_shape & 1 == 1 {
            (ptr::null(), usize::from(key_shape >> 1) % 3)
        } else {
            (key.as_ptr().cast::<c_char>(), key.len())
        };
        let filter_shape = input.u8();
        let garbage = input.bytes();
        let (filter_ptr, filter_len) = match filter_shape % 3 {
            0 => (ptr::null(), usize::from(filter_shape >> 2) % 3),
            1 if !self.filters.is_empty() => {
                let (f, l) = self.filters[usize::from(filter_shape >> 2) % self.filters.len()];
                (f.cast_const(), l)
            }
            _ => (garbage.as_ptr().cast::<c_char>(), garbage.len()),
        };
        let valid = policy.is_some()
            && (!key_ptr.is_null() || key_len == 0)
            && (!filter_ptr.is_null() || filter_len == 0);
        let matches_before = self.custom_calls(policy).map_or(0, |c| c.matches.get());
        // SAFETY: non-NULL pointers point to their length in live bytes.
        let answer = unsafe {
            leveldb_filterpolicy_key_may_match(
                self.raw(policy),
                key_ptr,
                key_len,
                filter_ptr,
                filter_len,
            )
        };
        if !valid {
            assert_eq!(answer, 1, "bad key_may_match arguments must answer 1");
            assert_eq!(
                self.custom_calls(policy).map_or(0, |c| c.matches.get()),
                matches_before,
                "bad input reached a callback"
            );
            return;
        }
        // SAFETY: accepted arguments are NULL only with length 0.
        let (key, filter) =
            unsafe { (accepted(key_ptr, key_len), accepted(filter_ptr, filter_len)) };
        assert_eq!(answer, u8::from(agreed_answer(key, filter)));
        if let Some(Kind::Custom { calls, .. }) = policy.map(|i| &self.policies[i].kind) {
            assert_eq!(calls.matches.get(), matches_before + 1);
        }
    }

    fn name(&self, input: &mut Reader<'_>) {
        let policy = self.pick(input);
        // SAFETY: NULL or a live policy.
        let name = unsafe { leveldb_filterpolicy_name(self.raw(policy)) };
        let Some(i) = policy else {
            assert!(name.is_null(), "name(NULL) is not NULL");
            return;
        };
        assert!(!name.is_null());
        // SAFETY: a policy's name is a C string that lives as long as the policy.
        let name = unsafe { CStr::from_ptr(name) };
        match &self.policies[i].kind {
            Kind::Bloom(_) => assert_eq!(name.to_str(), Ok(POLICY_NAME)),
            Kind::Custom { .. } => assert_eq!(name, CUSTOM_NAME),
        }
    }

    fn destroy(&mut self, input: &mut Reader<'_>) {
        match self.pick(input) {
            // SAFETY: destroy(NULL) is documented to do nothing.
            None => unsafe { leveldb_filterpolicy_destroy(ptr::null_mut()) },
            Some(i) => destroy(self.policies.remove(i)),
        }
    }
}

/// Destroys a policy; a custom one's destructor must run exactly once, and only if given.
fn destroy(policy: Policy) {
    // SAFETY: a live policy, never used again.
    unsafe { leveldb_filterpolicy_destroy(policy.raw) };
    if let Kind::Custom { calls, destructor } = policy.kind {
        assert_eq!(calls.destroyed.get(), usize::from(destructor));
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        for (filter, _) in self.filters.drain(..) {
            unsafe { leveldb_free(filter.cast()) };
        }
        // SAFETY: free(NULL) is documented to do nothing.
        unsafe { leveldb_free(ptr::null_mut()) };
        self.policies.drain(..).for_each(destroy);
    }
}

/// Runs the script: each step is an operation byte, then its arguments.
pub fn run(data: &[u8]) {
    let mut input = Reader::new(data);
    let mut script = Script::default();
    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        match input.u8() % 6 {
            0 => script.create_bloom(&mut input),
            1 => script.create_custom(&mut input),
            2 => script.create_filter(&mut input),
            3 => script.key_may_match(&mut input),
            4 => script.name(&mut input),
            _ => script.destroy(&mut input),
        }
    }
}
