//! Tensor names: shared text with its hash computed once.
//!
//! Inference looks tensors up by name several times per node (its inputs, its
//! outputs, the graph's order); a [`Name`] carries the hash of its text, so those
//! lookups never read the text, and two clones of one name compare equal by pointer.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// A tensor name: shared text and its hash. The inference context and the report's
/// writers clone the pointer, not the text; the hash of the text is computed once,
/// when the name is made.
///
/// Equality and order are those of the text; [`Hash`] writes the stored hash (one
/// `u64`), so a map keyed by names is looked up by text through [`NameKey`].
#[derive(Clone)]
pub struct Name {
    hash: u64,
    text: Arc<str>,
}

/// Whether two texts are equal. Lengths first, and two empty texts are equal without
/// `memcmp`: an empty `String` points nowhere, and `memcmp` of zero bytes at such a
/// pointer is slow on some CPUs (a masked load that must not fault); the per-node rule
/// lookup compares empty domain names often.
pub fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

/// The hash a [`Name`] stores for `text`.
pub fn text_hash(text: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

impl Name {
    /// The name spelled `text`.
    pub fn new(text: &str) -> Name {
        Name::of_key(NameKey::of(text))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The name of `key`'s text (its hash already computed).
    pub fn of_key(key: NameKey<'_>) -> Name {
        Name {
            hash: key.hash,
            text: Arc::from(key.text),
        }
    }

    /// The hash of the text, as [`text_hash`] computes it.
    pub fn text_hash(&self) -> u64 {
        self.hash
    }

    /// Whether the text is `text`.
    pub fn is(&self, text: &str) -> bool {
        same_text(&self.text, text)
    }

    /// This name's lookup key.
    pub fn key(&self) -> NameKey<'_> {
        NameKey {
            hash: self.hash,
            text: &self.text,
        }
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::new("")
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        Arc::ptr_eq(&self.text, &other.text) || (self.hash == other.hash && self.is(&other.text))
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.is(other)
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.is(other)
    }
}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Name) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    fn cmp(&self, other: &Name) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.text, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::new(text)
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name::new(&text)
    }
}

impl From<&String> for Name {
    fn from(text: &String) -> Name {
        Name::new(text)
    }
}

impl From<&Name> for Name {
    fn from(name: &Name) -> Name {
        name.clone()
    }
}

/// A name's text with its hash: what a map keyed by [`Name`] is looked up with
/// (`indexmap`'s `get(&key)`), from a `Name` ([`Name::key`]) without reading the text,
/// or from any text ([`NameKey::of`]).
#[derive(Clone, Copy, Debug)]
pub struct NameKey<'a> {
    hash: u64,
    text: &'a str,
}

impl<'a> NameKey<'a> {
    /// The key of `text`.
    pub fn of(text: &'a str) -> NameKey<'a> {
        NameKey {
            hash: text_hash(text),
            text,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &'a str {
        self.text
    }

    /// The hash of the text, as [`text_hash`] computes it.
    pub fn text_hash(&self) -> u64 {
        self.hash
    }
}

impl Hash for NameKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl indexmap::Equivalent<Name> for NameKey<'_> {
    fn equivalent(&self, name: &Name) -> bool {
        // Same text pointer: the key was taken from this name (or a clone of it).
        (std::ptr::eq(self.text.as_ptr(), name.text.as_ptr()) && self.text.len() == name.text.len())
            || (self.hash == name.hash && name.is(self.text))
    }
}

/// What a tensor can be looked up by: a [`Name`] (its stored hash) or any text (hashed
/// when looked up).
pub trait TensorKey {
    /// The lookup key.
    fn name_key(&self) -> NameKey<'_>;
}

impl TensorKey for Name {
    fn name_key(&self) -> NameKey<'_> {
        self.key()
    }
}

impl TensorKey for str {
    fn name_key(&self) -> NameKey<'_> {
        NameKey::of(self)
    }
}

impl TensorKey for String {
    fn name_key(&self) -> NameKey<'_> {
        NameKey::of(self)
    }
}

impl<T: TensorKey + ?Sized> TensorKey for &T {
    fn name_key(&self) -> NameKey<'_> {
        (**self).name_key()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_one_text_are_equal_and_hash_alike() {
        for text in ["", "x", "/model/layers.0/Add_output_0", "ü"] {
            let (a, b) = (Name::new(text), Name::from(text.to_string()));
            assert!(!Arc::ptr_eq(&a.text, &b.text));
            assert_eq!(a, b);
            assert_eq!(a.text_hash(), b.text_hash());
            assert_eq!(a.text_hash(), text_hash(text));
            assert_eq!(a.cmp(&b), std::cmp::Ordering::Equal);
            assert!(a.is(text) && a == text && &*a == text);
        }
        assert_ne!(Name::new("a"), Name::new("b"));
        assert_ne!(Name::new(""), Name::new("a"));
        assert!(!Name::new("ab").is("a") && !Name::new("").is("a"));
        assert!(Name::new("a") < Name::new("b"));
    }

    #[test]
    fn maps_keyed_by_names_are_found_by_text_or_by_name() {
        let mut m: indexmap::IndexMap<Name, usize, rustc_hash::FxBuildHasher> = Default::default();
        for (i, t) in ["a", "", "b/c", "long name with spaces"].iter().enumerate() {
            m.insert(Name::new(t), i);
        }
        for (i, t) in ["a", "", "b/c", "long name with spaces"].iter().enumerate() {
            assert_eq!(m.get(&NameKey::of(t)), Some(&i));
            assert_eq!(m.get(&Name::new(t).key()), Some(&i));
            assert_eq!(m.get(&t.name_key()), Some(&i));
        }
        assert_eq!(m.get(&NameKey::of("c")), None);
        // A clone is found through its pointer, another name through its text.
        let (k, _) = m.get_index(2).unwrap();
        assert_eq!(m.get(&k.clone().key()), Some(&2));
    }
}
