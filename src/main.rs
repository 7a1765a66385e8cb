//! The rsh binary: everything lives in the library; this only maps the result to an exit code.

fn main() {
    let status = rsh::cli::main(std::env::args_os().collect());
    std::process::exit(status);
}
