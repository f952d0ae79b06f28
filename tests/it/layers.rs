//! The crate's layers only look down (`docs/architecture.md`): the code of each
//! stage (a top-level module) names only stages before it in the pipeline, and,
//! inside a stage, a part names only parts below it ([`INNER`]). What Cargo already
//! enforces is not checked here: the algebra is its own crate.
//!
//! Every file under `src/` (but `lib.rs`, the root, and `main.rs`, another crate) is
//! parsed with `syn`. Every `use` tree (`{...}` groups expanded) and every path in
//! code (expressions, types, patterns, trait bounds, macro paths) that starts with
//! `crate::`, `super::` or `self::` is resolved against the file's module path; a
//! path that reaches the crate root names the module it goes on into, or, for a
//! name the root re-exports (`pub use shapes::infer` in `lib.rs`), the module the
//! re-export comes from: `crate::infer(..)` calls `shapes`' function, not the
//! `infer` module. Macro arguments are scanned as tokens for the same paths, and a
//! macro called by bare name that another module defines names that module. A path
//! that names the crate root itself (`use crate as root`, `use super::*` at the top)
//! or a root name that is neither a module nor a re-export is always an error,
//! since what follows it cannot be checked. Comments, doc comments and string
//! literals are not code and are not checked (but for path strings in attributes,
//! such as serde's `with = "..."`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::visit::Visit;

/// The stages in pipeline order: a stage's code names only stages before it. The
/// algebra, first, is its own crate, so Cargo keeps it from naming this one; here it
/// is the name `lib.rs` re-exports it under.
const PIPELINE: &[&str] = &[
    "algebra",
    "graph",
    "read",
    "context",
    "ops",
    "infer",
    "contracts",
    "analyses",
    "report",
    "shapes",
];

/// Inside a stage, its parts in levels: a part names only parts of earlier levels
/// (and earlier stages). `""` is the stage's own module: its `mod.rs` and every file
/// not listed; where it is not listed, it may name every part of its stage. The
/// readers do not know each other; `load` picks one.
const INNER: &[(&str, &[&[&str]])] = &[
    (
        "read",
        &[
            &["files"],
            &["onnx", "openvino", "onednn", "oprules"],
            &["load"],
        ],
    ),
    ("context", &[&["facts"], &[""]]),
    ("ops", &[&[""], &["shapes_api"]]),
    ("contracts", &[&[""], &["check", "explain", "ranges"]]),
    ("report", &[&[""], &["annotate"]]),
];

/// The levels of a stage's parts ([`INNER`]).
fn levels(stage: &str) -> Option<&'static [&'static [&'static str]]> {
    INNER.iter().find(|(s, _)| *s == stage).map(|(_, l)| *l)
}

/// The unit that a module path from the root (`read::onnx::wire`) belongs to: a
/// listed part of a stage (`read::onnx`), or else the top-level module (`read`).
fn unit<S: AsRef<str>>(path: &[S]) -> String {
    let top = path[0].as_ref();
    if let (Some(next), Some(levels)) = (path.get(1), levels(top)) {
        let next = next.as_ref();
        if !next.is_empty() && levels.iter().any(|l| l.contains(&next)) {
            return format!("{top}::{next}");
        }
    }
    top.to_string()
}

/// Whether code of unit `from` may name unit `to`.
fn allowed(from: &str, to: &str) -> bool {
    if from == to {
        return true;
    }
    let split = |u: &'_ str| -> (String, String) {
        match u.split_once("::") {
            Some((s, p)) => (s.to_string(), p.to_string()),
            None => (u.to_string(), String::new()),
        }
    };
    let ((fs, fp), (ts, tp)) = (split(from), split(to));
    let stage = |s: &str| PIPELINE.iter().position(|p| *p == s);
    if fs != ts {
        return matches!((stage(&fs), stage(&ts)), (Some(f), Some(t)) if t < f);
    }
    let Some(levels) = levels(&fs) else {
        return true;
    };
    let level = |part: &str| levels.iter().position(|l| l.contains(&part));
    match (level(&fp), level(&tp)) {
        (Some(f), Some(t)) => t < f,
        // The stage's own module, not listed: above its parts.
        (None, _) => fp.is_empty(),
        (Some(_), None) => false,
    }
}

/// What a path names at the crate root: a module's name, or [`ROOT`] for the root
/// itself, or `?NAME` for a root name that is neither a module nor a re-export.
type Named = String;

/// The crate root itself (an alias of it, a glob of it, or `crate` alone).
const ROOT: &str = "<the crate root>";

/// Source brought in from elsewhere (`#[path = ..] mod`, `include!`), whose module
/// path the file's place under `src/` does not give.
const ELSEWHERE: &str = "<source from another file>";

/// What the crate root holds, from `lib.rs` and the macros of every file.
#[derive(Default)]
struct Crate {
    /// The top-level modules (`mod x;`).
    modules: BTreeSet<String>,
    /// Root names re-exported by `pub use`, with the modules they come from.
    reexports: BTreeMap<String, BTreeSet<String>>,
    /// The modules a root glob re-export (`pub use x::*`) comes from.
    glob_reexports: BTreeSet<String>,
    /// `macro_rules!` macros by name, with the units ([`unit`]) defining them.
    macros: BTreeMap<String, BTreeSet<String>>,
}

/// Whether a path is read as a `use` (every namespace) or in code (a path that
/// ends at a root name is then a value, type or macro: the re-export, not a module).
#[derive(Clone, Copy, PartialEq)]
enum Context {
    Use,
    Code,
}

/// A path as written: its segments (`crate`, `super`, `self` kept) and whether it
/// ends in a glob.
#[derive(Clone, Debug)]
struct Written {
    segments: Vec<String>,
    glob: bool,
}

impl Written {
    fn text(&self) -> String {
        let mut t = self.segments.join("::");
        if self.glob {
            t.push_str("::*");
        }
        t
    }
}

impl Crate {
    /// The root of `lib_rs`, with the macros `files` (module path, source) define.
    fn new(lib_rs: &str, files: &[(Vec<String>, syn::File)]) -> Crate {
        let lib = syn::parse_file(lib_rs).expect("lib.rs parses");
        let mut krate = Crate::default();
        for item in &lib.items {
            match item {
                syn::Item::Mod(m) => {
                    krate.modules.insert(m.ident.to_string());
                }
                // A crate re-exported under a name (`pub use symdim_algebra as
                // algebra`) is a layer as a module is: paths to it are checked by that
                // name, and Cargo keeps its own code from naming this crate.
                syn::Item::Use(syn::ItemUse {
                    tree: syn::UseTree::Rename(r),
                    ..
                }) => {
                    krate.modules.insert(r.rename.to_string());
                }
                syn::Item::Use(u) => {
                    let mut paths = Vec::new();
                    expand_use(&u.tree, Vec::new(), &mut paths);
                    for (w, name) in paths {
                        // At the root, `x::Y`, `self::x::Y` and `crate::x::Y` all
                        // start at module `x`.
                        let segs: Vec<&String> = w
                            .segments
                            .iter()
                            .skip_while(|s| *s == "crate" || *s == "self")
                            .collect();
                        if segs.is_empty() {
                            continue;
                        }
                        let source = unit(&segs);
                        if w.glob && segs.len() == 1 {
                            krate.glob_reexports.insert(source);
                        } else if let Some(name) = name {
                            krate.reexports.entry(name).or_default().insert(source);
                        }
                    }
                }
                _ => {}
            }
        }
        for (module, file) in files {
            let mut defs = MacroDefs::default();
            defs.visit_file(file);
            for name in defs.names {
                krate.macros.entry(name).or_default().insert(unit(module));
            }
        }
        krate
    }

    /// The modules (or [`ROOT`], `?NAME`) named by the code of `file`, the module at
    /// `module` (its path from the root, e.g. `["ops", "conv"]`), each with a path
    /// that names it.
    fn named(&self, module: &[String], file: &syn::File) -> BTreeMap<Named, String> {
        let mut walker = Walker {
            krate: self,
            module: module.to_vec(),
            found: BTreeMap::new(),
        };
        walker.visit_file(file);
        walker.found
    }

    /// What the root name `name` is, read in `context`, with `more` segments after it.
    fn root_name(&self, name: &str, more: bool, context: Context) -> BTreeSet<Named> {
        let module = self.modules.get(name).cloned().into_iter();
        let reexport = self
            .reexports
            .get(name)
            .cloned()
            .unwrap_or_else(|| self.glob_reexports.clone());
        let out: BTreeSet<Named> = if more {
            // Only a module or a re-exported type has something under it.
            if self.modules.contains(name) {
                module.collect()
            } else {
                reexport
            }
        } else if context == Context::Use {
            module.chain(reexport).collect()
        } else if !reexport.is_empty() {
            reexport
        } else {
            module.collect()
        };
        if out.is_empty() {
            [format!("?{name}")].into()
        } else {
            out
        }
    }
}

/// `use` tree → the paths it imports, each with the name it binds (`None` for a
/// glob).
fn expand_use(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(Written, Option<String>)>) {
    let leaf = |ident: &syn::Ident, prefix: &[String]| -> Written {
        let mut segments = prefix.to_vec();
        // `{self}` in a group is the prefix itself.
        if ident != "self" || prefix.is_empty() {
            segments.push(ident.to_string());
        }
        Written {
            segments,
            glob: false,
        }
    };
    match tree {
        syn::UseTree::Path(p) => {
            let mut prefix = prefix;
            prefix.push(p.ident.to_string());
            expand_use(&p.tree, prefix, out);
        }
        syn::UseTree::Name(n) => out.push((leaf(&n.ident, &prefix), Some(n.ident.to_string()))),
        syn::UseTree::Rename(r) => out.push((leaf(&r.ident, &prefix), Some(r.rename.to_string()))),
        syn::UseTree::Glob(_) => out.push((
            Written {
                segments: prefix,
                glob: true,
            },
            None,
        )),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                expand_use(t, prefix.clone(), out);
            }
        }
    }
}

/// The `macro_rules!` macros a file defines.
#[derive(Default)]
struct MacroDefs {
    names: Vec<String>,
}

impl<'ast> Visit<'ast> for MacroDefs {
    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        if let (Some(ident), true) = (&m.ident, m.mac.path.is_ident("macro_rules")) {
            self.names.push(ident.to_string());
        }
    }
}

/// Walks one file, collecting what its paths name.
struct Walker<'a> {
    krate: &'a Crate,
    /// The module being walked (inline `mod x { .. }` pushes onto it).
    module: Vec<String>,
    found: BTreeMap<Named, String>,
}

impl Walker<'_> {
    fn note(&mut self, named: Named, text: String) {
        self.found.entry(named).or_insert(text);
    }

    /// Record what `w` names, when it starts at `crate`, `super` or `self`.
    fn resolve(&mut self, w: &Written, context: Context) {
        let segs = &w.segments;
        let mut base = match segs.first().map(String::as_str) {
            Some("crate") => Vec::new(),
            Some("self" | "super") => self.module.clone(),
            _ => return,
        };
        let mut rest = &segs[1..];
        if segs[0] == "super" {
            base.pop();
        }
        while let Some(s) = rest.first() {
            match s.as_str() {
                "super" => {
                    base.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
        if rest.is_empty() && context == Context::Code {
            // `self` alone in code is a method's receiver, not a module.
            return;
        }
        let abs: Vec<&String> = base.iter().chain(rest).collect();
        match abs.first() {
            None => self.note(ROOT.to_string(), w.text()),
            Some(name) => {
                let more = abs.len() > 1 || w.glob;
                for named in self.krate.root_name(name, more, context) {
                    // A module: the unit of the path into it (`read::onnx`).
                    let named = if named == **name { unit(&abs) } else { named };
                    self.note(named, w.text());
                }
            }
        }
    }

    /// A macro called by its bare name: the modules that define a macro of that name,
    /// when this module does not.
    fn bare_macro(&mut self, name: &str) {
        if name == "include" {
            self.note(ELSEWHERE.to_string(), "include!".to_string());
            return;
        }
        let Some(defs) = self.krate.macros.get(name) else {
            return;
        };
        if !defs.contains(&unit(&self.module)) {
            for d in defs.clone() {
                self.note(d, format!("{name}!"));
            }
        }
    }

    /// Scan tokens (a macro's arguments or an attribute's) for anchored paths, bare
    /// macro calls and, when `strings`, path strings.
    fn scan(&mut self, tokens: TokenStream, strings: bool) {
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tts.len() {
            let after_path_sep = i >= 2 && is_path_sep(&tts, i - 2);
            match &tts[i] {
                TokenTree::Group(g) => {
                    self.scan(g.stream(), strings);
                    i += 1;
                }
                TokenTree::Ident(id)
                    if !after_path_sep
                        && (id == "crate" || id == "super" || id == "self")
                        && is_path_sep(&tts, i + 1) =>
                {
                    let mut paths = Vec::new();
                    let next = token_tree_paths(&tts, i, Vec::new(), &mut paths);
                    for w in &paths {
                        self.resolve(w, Context::Use);
                    }
                    i = next;
                }
                TokenTree::Ident(id) if !after_path_sep && is_macro_call(&tts, i) => {
                    self.bare_macro(&id.to_string());
                    i += 1;
                }
                TokenTree::Literal(lit) if strings => {
                    if let Ok(s) = syn::parse_str::<syn::LitStr>(&lit.to_string()) {
                        if let Ok(p) = syn::parse_str::<syn::Path>(&s.value()) {
                            self.visit_path(&p);
                        }
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }
}

/// `::` at `tts[i..]`.
fn is_path_sep(tts: &[TokenTree], i: usize) -> bool {
    matches!(
        (tts.get(i), tts.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && b.as_char() == ':'
    )
}

/// `name ! (..)` at `tts[i..]`.
fn is_macro_call(tts: &[TokenTree], i: usize) -> bool {
    matches!(
        (tts.get(i + 1), tts.get(i + 2)),
        (Some(TokenTree::Punct(p)), Some(TokenTree::Group(_))) if p.as_char() == '!'
    )
}

/// The paths of a use-tree-like token sequence starting at `tts[i]` (an identifier),
/// `prefix` before it; returns the index after it.
fn token_tree_paths(
    tts: &[TokenTree],
    mut i: usize,
    prefix: Vec<String>,
    out: &mut Vec<Written>,
) -> usize {
    let mut segments = prefix;
    loop {
        match tts.get(i) {
            Some(TokenTree::Ident(id)) => {
                segments.push(id.to_string());
                i += 1;
            }
            Some(TokenTree::Punct(p)) if p.as_char() == '*' => {
                out.push(Written {
                    segments,
                    glob: true,
                });
                return i + 1;
            }
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                for part in inner.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                {
                    match part.first() {
                        Some(TokenTree::Ident(id)) if id == "self" && part.len() == 1 => {
                            out.push(Written {
                                segments: segments.clone(),
                                glob: false,
                            });
                        }
                        Some(_) => {
                            token_tree_paths(part, 0, segments.clone(), out);
                        }
                        None => {}
                    }
                }
                return i + 1;
            }
            _ => break,
        }
        if is_path_sep(tts, i) {
            i += 2;
        } else {
            break;
        }
    }
    out.push(Written {
        segments,
        glob: false,
    });
    i
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        for a in &m.attrs {
            if a.path().is_ident("path") {
                self.note(ELSEWHERE.to_string(), format!("#[path] mod {}", m.ident));
            }
            self.visit_attribute(a);
        }
        if let Some((_, items)) = &m.content {
            self.module.push(m.ident.to_string());
            for item in items {
                self.visit_item(item);
            }
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        for a in &u.attrs {
            self.visit_attribute(a);
        }
        let mut paths = Vec::new();
        expand_use(&u.tree, Vec::new(), &mut paths);
        for (w, _) in &paths {
            self.resolve(w, Context::Use);
        }
    }

    fn visit_item_extern_crate(&mut self, e: &'ast syn::ItemExternCrate) {
        // `extern crate self as name;` makes `name::...` a second way to the root.
        if e.ident == "self" {
            self.note(ROOT.to_string(), "extern crate self".to_string());
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            let w = Written {
                segments: p.segments.iter().map(|s| s.ident.to_string()).collect(),
                glob: false,
            };
            self.resolve(&w, Context::Code);
        }
        syn::visit::visit_path(self, p);
    }

    // `pub(crate)`, `pub(super)`, `pub(in crate::x)` restrict visibility to an
    // ancestor: they name no other module.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.leading_colon.is_none() && m.path.segments.len() == 1 {
            self.bare_macro(&m.path.segments[0].ident.to_string());
        }
        self.visit_path(&m.path);
        self.scan(m.tokens.clone(), false);
    }

    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        if a.path().is_ident("doc") {
            return;
        }
        if let syn::Meta::List(list) = &a.meta {
            self.scan(list.tokens.clone(), true);
        }
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                if let Ok(p) = syn::parse_str::<syn::Path>(&s.value()) {
                    self.visit_path(&p);
                }
            }
        }
    }
}

/// The module path of a file under `src/`: `ops/conv.rs` is `ops::conv`,
/// `ops/mod.rs` is `ops`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut out: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if out.last().is_some_and(|l| l == "mod") {
        out.pop();
    }
    out
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Each file's path relative to `src/`, its module path and its syntax tree (but
/// `lib.rs` and `main.rs`).
fn parsed_sources() -> Vec<(PathBuf, Vec<String>, syn::File)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    all.sort();
    all.into_iter()
        .filter_map(|path| {
            let rel = path.strip_prefix(&src).unwrap().to_path_buf();
            if rel == Path::new("lib.rs") || rel == Path::new("main.rs") {
                return None;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let file = syn::parse_file(&text)
                .unwrap_or_else(|e| panic!("{} does not parse: {e}", rel.display()));
            Some((rel.clone(), module_path(&rel), file))
        })
        .collect()
}

fn lib_rs() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap()
}

/// The units `named` holds that unit `from` may not name, as messages.
fn violations(from: &str, named: &BTreeMap<Named, String>) -> Vec<String> {
    named
        .iter()
        .filter(|(m, _)| !allowed(from, m))
        .map(|(m, path)| format!("`{from}` names `{m}` (`{path}`)"))
        .collect()
}

#[test]
fn layers_only_look_down() {
    let sources = parsed_sources();
    let modules: Vec<(Vec<String>, syn::File)> = sources
        .iter()
        .map(|(_, m, f)| (m.clone(), f.clone()))
        .collect();
    let krate = Crate::new(&lib_rs(), &modules);
    let mut wrong = Vec::new();
    for (rel, module, file) in &sources {
        if !PIPELINE.contains(&module[0].as_str()) {
            wrong.push(format!(
                "{}: module `{}` has no stage",
                rel.display(),
                module[0]
            ));
            continue;
        }
        for v in violations(&unit(module), &krate.named(module, file)) {
            wrong.push(format!("{}: {v}", rel.display()));
        }
    }
    assert!(sources.len() > 40, "only {} files checked", sources.len());
    assert!(wrong.is_empty(), "back-edges:\n{}", wrong.join("\n"));
}

#[test]
fn the_stages_are_the_crates_modules() {
    let krate = Crate::new(&lib_rs(), &[]);
    let stages: BTreeSet<String> = PIPELINE.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        stages, krate.modules,
        "PIPELINE against the modules of lib.rs"
    );
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (stage, levels) in INNER {
        assert!(PIPELINE.contains(stage), "{stage} is not a stage");
        for part in levels
            .iter()
            .flat_map(|l| l.iter())
            .filter(|p| !p.is_empty())
        {
            let dir = src.join(stage);
            assert!(
                dir.join(format!("{part}.rs")).exists() || dir.join(part).join("mod.rs").exists(),
                "{stage}::{part} is not a module"
            );
        }
    }
    // Every root re-export comes from a stage, so a path to it is checked.
    for (name, from) in &krate.reexports {
        for f in from {
            assert!(
                krate.modules.contains(f.split("::").next().unwrap()),
                "{name} from {f}"
            );
        }
    }
}

// ----- the checker itself --------------------------------------------------------------

const TOY_LIB: &str = "
    pub mod graph;
    pub mod infer;
    pub mod load;
    pub mod ops;
    pub mod report;
    pub mod shapes;
    pub use graph::{DType, Model};
    pub use load::{load, LoadError};
    pub use report::Report;
    pub use shapes::{infer, Shapes};
";

/// What the code `text` of module `module` (`a::b`) names, in a crate of `TOY_LIB`
/// whose other modules are `others` (module, source).
fn toy_named(module: &str, text: &str, others: &[(&str, &str)]) -> Vec<String> {
    let parse = |m: &str, t: &str| {
        (
            m.split("::").map(str::to_string).collect::<Vec<_>>(),
            syn::parse_file(t).unwrap(),
        )
    };
    let this = parse(module, text);
    let mut all: Vec<(Vec<String>, syn::File)> = others.iter().map(|(m, t)| parse(m, t)).collect();
    all.push(this.clone());
    let krate = Crate::new(TOY_LIB, &all);
    krate.named(&this.0, &this.1).into_keys().collect()
}

#[test]
fn the_check_sees_plain_paths_and_skips_comments() {
    let text = "
        use crate::graph::Node;
        // crate::report in a comment
        /// and in a doc comment: [crate::report::Report]
        pub(crate) fn f() { crate::ops::run(); }
        pub(in crate::infer) struct S;
    ";
    assert_eq!(toy_named("infer", text, &[]), ["graph", "ops"]);
}

#[test]
fn the_check_expands_use_groups() {
    assert_eq!(
        toy_named("infer", "use crate::{report::X};", &[]),
        ["report"]
    );
    assert_eq!(
        toy_named(
            "infer",
            "use crate::{graph::{self, Node}, ops::{conv::*}};",
            &[]
        ),
        ["graph", "ops"]
    );
}

#[test]
fn the_check_resolves_super_and_self() {
    // From a top-level module, `super` is the root.
    assert_eq!(toy_named("infer", "use super::report::X;", &[]), ["report"]);
    assert_eq!(
        toy_named("infer", "fn f() { super::report::write(); }", &[]),
        ["report"]
    );
    // From a submodule, `super::super` is the root.
    assert_eq!(
        toy_named(
            "ops::conv",
            "fn f() { super::super::report::write(); }",
            &[]
        ),
        ["report"]
    );
    // Within the module's own tree: its own name.
    assert_eq!(
        toy_named(
            "ops::conv",
            "use super::attrs::get; use self::inner::X;",
            &[]
        ),
        ["ops"]
    );
    // An inline module one level further down.
    assert_eq!(
        toy_named(
            "ops",
            "mod tests { use super::super::report::X; use super::conv::*; }",
            &[]
        ),
        ["ops", "report"]
    );
}

#[test]
fn the_check_maps_root_reexports_to_their_modules() {
    // `crate::infer(..)` is the facade's function from `shapes`, not the `infer`
    // module; `crate::infer::run` is the module.
    assert_eq!(
        toy_named("ops", "fn f(m: &crate::Model) { crate::infer(m); }", &[]),
        ["graph", "shapes"]
    );
    assert_eq!(
        toy_named("ops", "fn f() { crate::infer::run(); }", &[]),
        ["infer"]
    );
    // A `use` of the name imports both the module and the function.
    assert_eq!(
        toy_named("ops", "use crate::infer;", &[]),
        ["infer", "shapes"]
    );
    assert_eq!(
        toy_named(
            "ops",
            "fn f() -> crate::Report { crate::Report::new() }",
            &[]
        ),
        ["report"]
    );
    assert_eq!(toy_named("ops", "use crate::load;", &[]), ["load"]);
    // In `infer`, the receiver `self` is not a path to the root's `infer`.
    let text = "struct S; impl S { fn f(&self) -> &Self { let _ = self::g; self } }";
    assert_eq!(toy_named("infer", text, &[]), ["infer"]);
}

#[test]
fn the_check_reads_code_not_strings() {
    let text = r#"fn f() { let s = "http://x"; crate::report::write(s); }"#;
    assert_eq!(toy_named("infer", text, &[]), ["report"]);
    let text = r#"fn f() { let s = "crate::report::write"; }"#;
    assert!(toy_named("infer", text, &[]).is_empty());
}

#[test]
fn the_check_reads_macro_arguments_and_bare_macro_calls() {
    assert_eq!(
        toy_named(
            "infer",
            r#"fn f() { println!("{}", crate::report::x()); }"#,
            &[]
        ),
        ["report"]
    );
    assert_eq!(
        toy_named(
            "infer",
            "fn f() { let v = vec![super::{report::X, ops::Y}]; }",
            &[]
        ),
        ["ops", "report"]
    );
    // A macro another module defines, called by its bare name.
    let report = ("report", "macro_rules! write_row { () => {} }");
    assert_eq!(
        toy_named("infer", "fn f() { write_row!(); }", &[report]),
        ["report"]
    );
    // Its own macro, or a std one, names nothing.
    assert!(toy_named(
        "infer",
        "macro_rules! write_row { () => {} } fn f() { write_row!(); format!(\"x\"); }",
        &[report]
    )
    .is_empty());
    // A path to a macro, and paths in a macro's definition.
    assert_eq!(
        toy_named("infer", "fn f() { crate::report::row!(); }", &[]),
        ["report"]
    );
    assert_eq!(
        toy_named(
            "infer",
            "macro_rules! m { () => { $crate::report::x() } }",
            &[]
        ),
        ["report"]
    );
}

#[test]
fn the_check_reads_path_strings_in_attributes() {
    let text = r#"#[derive(Serialize)] struct S { #[serde(with = "crate::report::ser")] x: u8 }"#;
    assert_eq!(toy_named("infer", text, &[]), ["report"]);
}

#[test]
fn the_check_refuses_what_it_cannot_follow() {
    for text in [
        "use crate as root; fn f() { root::report::x(); }",
        "use super::*;",
        "use super::{self as up};",
        "extern crate self as me;",
    ] {
        assert!(
            toy_named("infer", text, &[]).contains(&ROOT.to_string()),
            "{text}"
        );
    }
    // From a submodule, `super::super::*` is the root too.
    assert!(toy_named("ops::conv", "use super::super::*;", &[]).contains(&ROOT.to_string()));
    for text in [
        "#[path = \"../report.rs\"] mod r;",
        "include!(\"../report.rs\");",
    ] {
        assert_eq!(toy_named("infer", text, &[]), [ELSEWHERE], "{text}");
    }
    // A root name that is neither a module nor a re-export.
    assert_eq!(
        toy_named("infer", "fn f() { crate::nowhere(); }", &[]),
        ["?nowhere"]
    );
}

#[test]
fn a_back_edge_is_a_violation() {
    let krate = Crate::new(&lib_rs(), &[]);
    let file = syn::parse_file("fn f() { crate::infer(m); }").unwrap();
    let named = krate.named(&["contracts".to_string()], &file);
    assert_eq!(
        violations("contracts", &named),
        ["`contracts` names `shapes` (`crate::infer`)"]
    );
    let file = syn::parse_file("use crate::{report::Report};").unwrap();
    let named = krate.named(&["infer".to_string()], &file);
    assert_eq!(
        violations("infer", &named),
        ["`infer` names `report` (`crate::report::Report`)"]
    );
    // Allowed: below, and the module's own tree.
    let file = syn::parse_file("use crate::graph::Node; use super::infer::x;").unwrap();
    assert!(violations("infer", &krate.named(&["infer".to_string()], &file)).is_empty());
}

#[test]
fn inside_a_stage_parts_look_down() {
    let krate = Crate::new(&lib_rs(), &[]);
    let named = |module: &[&str], text: &str| {
        let module: Vec<String> = module.iter().map(|m| m.to_string()).collect();
        let file = syn::parse_file(text).unwrap();
        violations(&unit(&module), &krate.named(&module, &file))
    };
    // A reader does not know another; each may open files.
    assert_eq!(
        named(
            &["read", "onnx", "wire"],
            "use crate::read::openvino::IrModel; use crate::read::files::open;"
        ),
        ["`read::onnx` names `read::openvino` (`crate::read::openvino::IrModel`)"]
    );
    assert!(named(&["read", "load"], "use super::onnx::parse;").is_empty());
    // `facts` is below the rest of `context`; `check` is above `contracts`' own module.
    assert_eq!(
        named(&["context", "facts"], "use super::ShapesContext;"),
        ["`context::facts` names `context` (`super::ShapesContext`)"]
    );
    assert!(named(&["context", "problems"], "use super::facts::Facts;").is_empty());
    assert_eq!(
        named(&["contracts"], "use crate::contracts::check::Status;"),
        ["`contracts` names `contracts::check` (`crate::contracts::check::Status`)"]
    );
    assert!(named(&["contracts", "check"], "use super::derive;").is_empty());
    // A root re-export names the part it comes from.
    assert_eq!(
        named(&["graph"], "fn f(x: crate::Facts) {}"),
        ["`graph` names `context::facts` (`crate::Facts`)"]
    );
}
