//! `mebo-test-s3 ROOT ACCESS_KEY SECRET_KEY`: serves ROOT over the S3 API
//! on 127.0.0.1 (a port the system picks), each subdirectory a bucket, and
//! prints `http://127.0.0.1:PORT` on its first line of output. The engine
//! tests start it as their bucket and kill it when done.

use std::io::Write;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnBuilder;
use s3s::auth::SimpleAuth;
use s3s::service::S3ServiceBuilder;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, key, secret] = args.as_slice() else {
        eprintln!("usage: mebo-test-s3 ROOT ACCESS_KEY SECRET_KEY");
        std::process::exit(2);
    };
    let store = s3s_fs::FileSystem::new(root).map_err(|e| format!("{root}: {e:?}"))?;
    let mut builder = S3ServiceBuilder::new(store);
    builder.set_auth(SimpleAuth::from_single(key.as_str(), secret.as_str()));
    let service = builder.build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let mut out = std::io::stdout();
    writeln!(out, "http://{}", listener.local_addr()?)?;
    out.flush()?;
    let http = ConnBuilder::new(TokioExecutor::new());
    loop {
        let (socket, _) = listener.accept().await?;
        // As servers of object storage do: without it, a small response on a
        // kept-alive connection waits out the client's delayed ACK (40 ms).
        socket.set_nodelay(true)?;
        let conn = http.serve_connection(TokioIo::new(socket), service.clone()).into_owned();
        tokio::spawn(async move {
            let _ = conn.await;
        });
    }
}
