//! `auditloop healthcheck`: asks a running auditloop for `/healthz` and exits 0 when it
//! answers 200. Container images without a shell or curl use it as their health check.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::Duration;

use crate::operator_config::{DEFAULT_LISTEN, LISTEN};

#[derive(clap::Args, Clone, Debug, Default)]
pub struct HealthcheckArgs {
    #[arg(long, help = LISTEN.help_as("The address auditloop listens on", DEFAULT_LISTEN))]
    pub(crate) listen: Option<String>,
    /// Seconds to wait for the answer
    #[arg(long, default_value_t = 3)]
    pub(crate) timeout: u64,
}

/// Where to connect: the listen address, with a wildcard bind reached through loopback.
///
/// # Errors
///
/// When the listen address (flag or `AUDITLOOP_LISTEN`) does not parse.
pub fn target(
    args: &HealthcheckArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<SocketAddr> {
    let mut addr = crate::operator_config::listen(args.listen.clone(), env, DEFAULT_LISTEN)?;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    Ok(addr)
}

/// One `GET /healthz`; the status line's code.
///
/// # Errors
///
/// When the connection, the request or reading the status line fails or times out.
pub(crate) fn probe(addr: SocketAddr, timeout: Duration) -> std::io::Result<u16> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut head = [0u8; 64];
    let mut read = 0;
    while read < 12 {
        let n = stream.read(&mut head[read..])?;
        if n == 0 {
            break;
        }
        read += n;
    }
    let line = String::from_utf8_lossy(&head[..read]);
    line.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP answer: {line:?}")))
}

pub(crate) fn run(args: &HealthcheckArgs, env: &dyn Fn(&str) -> Option<String>) -> ExitCode {
    let addr = match target(args, env) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("auditloop: {e}");
            return ExitCode::from(2);
        }
    };
    match probe(addr, Duration::from_secs(args.timeout.max(1))) {
        Ok(200) => {
            println!("ok");
            ExitCode::SUCCESS
        }
        Ok(code) => {
            eprintln!("auditloop: http://{addr}/healthz answered {code}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("auditloop: http://{addr}/healthz: {e}");
            ExitCode::FAILURE
        }
    }
}
