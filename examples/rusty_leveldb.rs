//! leveldb's bloom filter in rusty-leveldb (cargo feature `rusty-leveldb`): a database whose tables
//! carry this library's filters, byte for byte C++ leveldb's, written and read back. Run it with
//! `cargo run --example rusty_leveldb --features rusty-leveldb`, or as a crate of one's own (the
//! README's "Rust with rusty-leveldb").

use std::rc::Rc;

use leveldb_bloom::BloomPolicy;

fn main() {
    // rusty-leveldb takes its filter policy in its Options: this library's, in one line.
    let mut options = rusty_leveldb::in_memory(); // or Options::default(), on disk
    options.filter_policy = Rc::new(Box::new(BloomPolicy::new(10)));
    let mut db = rusty_leveldb::DB::open("fruit.db", options).expect("an in-memory database");
    for (key, value) in [
        ("apple", "red"),
        ("banana", "yellow"),
        ("cherry", "dark red"),
    ] {
        db.put(key.as_bytes(), value.as_bytes()).expect("put");
    }
    db.compact_range(b"a", b"z").expect("compaction"); // into a table, with its filters
    assert_eq!(db.get(b"banana").as_deref(), Some(&b"yellow"[..]));
    assert_eq!(db.get(b"kiwi"), None);
    println!("banana: yellow; kiwi: absent");
}
