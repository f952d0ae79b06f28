//! The `symdim` command-line tool.

fn main() {
    println!("symdim");
}
