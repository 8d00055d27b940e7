fn main() -> std::process::ExitCode {
    auditloop::cli::root::run()
}
