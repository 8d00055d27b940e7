//! The setup pages on a 400 px screen, in headless Chromium: no code span of the
//! permissions table is split inside a word (`auditloo` / `p.yml`), and each tunnel command
//! is one block on one line (it scrolls sideways rather than wrapping into what reads as two
//! commands). Skipped, saying so, where chromedriver is missing (CI installs it).

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::{ClientBuilder, Locator};

use crate::setup_browser::{capabilities, chromedriver, start_driver};
use crate::setup_flow::serve_setup;
use crate::support::fake::FakeGitHub;

/// The code spans under `arguments[0]` that a line break splits between two word characters.
const SPLIT_CODE: &str = "
const splits = [];
for (const code of document.querySelectorAll(arguments[0])) {
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  let top = null, last = null, node;
  while ((node = walker.nextNode())) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect) continue;
      const ch = node.data[i];
      if (top !== null && Math.abs(rect.top - top) > 2 && /\\w/.test(last) && /\\w/.test(ch)) {
        splits.push(code.textContent);
      }
      top = rect.top;
      last = ch;
    }
  }
}
return splits;";

/// Each tunnel command: its text and how many lines it takes.
const COMMAND_LINES: &str = "
return [...document.querySelectorAll('#tunnels .command')].map(pre => {
  const range = document.createRange();
  range.selectNodeContents(pre);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return [pre.textContent, tops.size];
});";

async fn wait_for(c: &fantoccini::Client, css: &str) -> fantoccini::elements::Element {
    c.wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css} on the page: {e}"))
}

async fn splits(c: &fantoccini::Client, css: &str) -> Vec<serde_json::Value> {
    let found = c.execute(SPLIT_CODE, vec![css.into()]).await.unwrap();
    found.as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_400_px_no_code_is_split_mid_word_and_each_command_is_one_block() {
    let Some(driver_bin) = chromedriver() else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
        assert!(
            !ci,
            "chromedriver is missing: install Debian's chromium and chromium-driver"
        );
        eprintln!("SKIPPED: no chromedriver (apt-get install chromium chromium-driver)");
        return;
    };
    let gh = FakeGitHub::start().await;
    let dir = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let base = serve_setup(&gh, dir.path()).await;
    let driver = start_driver(&driver_bin).await;
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let c = ClientBuilder::new(connector)
        .capabilities(capabilities(profile.path()))
        .connect(&driver.url)
        .await
        .expect("a Chromium session through chromedriver");
    let outcome = async {
        c.set_window_size(400, 1000).await.unwrap();
        c.goto(&format!("{base}/")).await.unwrap();
        wait_for(&c, "#tunnels").await;
        let commands = c.execute(COMMAND_LINES, vec![]).await.unwrap();
        let commands = commands.as_array().cloned().unwrap_or_default();
        assert_eq!(
            commands.len(),
            2,
            "two commands, each its own block: {commands:?}"
        );
        for command in &commands {
            assert_eq!(command[1], 1, "a command on one line: {command}");
        }
        assert!(commands[0][0]
            .as_str()
            .unwrap()
            .starts_with("cloudflared tunnel --url"));

        wait_for(&c, "#review").await.click().await.unwrap();
        wait_for(&c, "#permissions").await;
        let found = splits(&c, "#permissions code").await;
        assert!(found.is_empty(), "code split mid-word at 400 px: {found:?}");
        let paths = c
            .execute(
                "return document.querySelectorAll('#permissions code').length;",
                vec![],
            )
            .await
            .unwrap();
        assert!(
            paths.as_u64().unwrap_or(0) > 6,
            "file and event names are code: {paths}"
        );

        // The check sees a split where there is one: break code anywhere and it finds some.
        c.execute(
            "const s = document.createElement('style'); s.textContent = '#permissions code{word-break:break-all!important;white-space:normal!important}'; document.head.append(s);",
            vec![],
        )
        .await
        .unwrap();
        c.set_window_size(240, 1000).await.unwrap();
        assert!(!splits(&c, "#permissions code").await.is_empty());
    };
    let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/setup-screenshots");
    let result = tokio::time::timeout(Duration::from_secs(180), outcome).await;
    if let Ok(png) = c.screenshot().await {
        let _ = std::fs::create_dir_all(&shots);
        let _ = std::fs::write(shots.join("setup-narrow-400.png"), png);
    }
    let _ = c.close().await;
    drop(driver);
    result.expect("the narrow-screen check finished within 3 minutes");
}
