//! The typed face: `Engine::run(Command)` answers as the JSON faces do, and every
//! failure has the kind faces branch on (the explorer's banners, the host's exit
//! status, a JS `error.kind`), for each kind the engine can produce.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use memdir::config::{Config, Limits};
use memdir::{
    Command, Engine, ErrorKind, MemoryStore, Page, SecretPolicy, Store, StoreError, ToolError,
    block_on,
};
use serde_json::json;

fn create(path: &str, text: &str) -> Command {
    Command::Create {
        path: path.into(),
        file_text: text.into(),
    }
}

fn kind(r: Result<String, ToolError>) -> ErrorKind {
    r.expect_err("a failure").kind()
}

#[test]
fn the_typed_face_answers_as_the_json_faces_do() {
    let engine = Engine::new(MemoryStore::new(), Config::default());
    let typed = block_on(engine.run(create("/memories/a.md", "one\ntwo")));
    assert_eq!(
        typed.as_deref(),
        Ok("File created successfully at: /memories/a.md")
    );
    let view = Command::View {
        path: "/memories/a.md".into(),
        view_range: Some((2, -1)),
    };
    let json = json!({"command": "view", "path": "/memories/a.md", "view_range": [2, -1]});
    let by_json = block_on(engine.execute(&json));
    assert_eq!(
        block_on(engine.run(view)).unwrap(),
        "Here's the content of /memories/a.md with line numbers:\n     2\ttwo"
    );
    assert_eq!(
        by_json.content,
        "Here's the content of /memories/a.md with line numbers:\n     2\ttwo"
    );
    let insert = Command::Insert {
        path: "/memories/a.md".into(),
        insert_line: (-1i64).into(),
        insert_text: "x".into(),
    };
    let refused = block_on(engine.run(insert)).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "Invalid `insert_line` parameter: -1. It should be within the range of lines of the file: [0, 2]"
    );
    assert_eq!(refused.kind(), ErrorKind::Refused);
}

#[test]
fn each_kind_of_failure_is_named() {
    let limits = Limits {
        max_file_bytes: 10,
        max_total_bytes: 12,
        ..Limits::default()
    };
    let config = Config {
        limits,
        secrets: SecretPolicy::Refuse,
        ..Config::default()
    };
    let engine = Engine::new(MemoryStore::new(), config);
    assert_eq!(
        kind(block_on(engine.handle(&json!({"command": "nope"})))),
        ErrorKind::Input
    );
    assert_eq!(
        kind(block_on(engine.run(create("/etc/passwd", "x")))),
        ErrorKind::Path
    );
    assert_eq!(
        kind(block_on(engine.run(Command::Delete {
            path: "/memories/none".into()
        }))),
        ErrorKind::Refused
    );
    assert_eq!(
        kind(block_on(engine.run(create("/memories/big", "01234567890")))),
        ErrorKind::Limit
    );
    block_on(engine.run(create("/memories/a", "0123456789"))).unwrap();
    assert_eq!(
        kind(block_on(engine.run(create("/memories/b", "012")))),
        ErrorKind::Limit,
        "over the quota"
    );
    assert_eq!(
        kind(block_on(
            engine.run(create("/memories/k", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuv-AAAAAA"))
        )),
        ErrorKind::Secret
    );

    let full = Engine::new(Refusing(StoreError::QuotaExceeded), Config::default());
    assert_eq!(
        kind(block_on(full.run(create("/memories/a", "x")))),
        ErrorKind::StorageFull
    );
    let gone = Engine::new(Refusing(StoreError::Unavailable), Config::default());
    assert_eq!(
        kind(block_on(gone.run(create("/memories/a", "x")))),
        ErrorKind::StorageUnavailable
    );
    let failed = Engine::new(Refusing(StoreError::Failed), Config::default());
    let err = block_on(failed.run(create("/memories/a", "x"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::StorageFailed);
    assert_eq!(
        err.to_string(),
        "The memory directory's storage failed; nothing was changed."
    );

    let damaged = MemoryStore::new();
    block_on(damaged.set("head", b"not a hash")).unwrap();
    let err = block_on(Engine::new(damaged, Config::default()).entries()).unwrap_err();
    assert_eq!(err, ToolError::Damaged);
    assert_eq!(err.kind(), ErrorKind::Damaged);

    let busy = Engine::new(Contended(MemoryStore::new()), Config::default());
    let err = block_on(busy.run(create("/memories/a", "x"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Busy);
    assert_eq!(
        err.to_string(),
        "The memory directory is busy: other writers kept changing it while this command ran; nothing was changed. Try again."
    );
    assert_eq!(
        ErrorKind::ALL.map(ErrorKind::name),
        [
            "input",
            "path",
            "refused",
            "limit",
            "secret",
            "storage_full",
            "storage_unavailable",
            "storage_failed",
            "damaged",
            "busy"
        ]
    );
}

/// A store whose every operation fails the same way.
struct Refusing(StoreError);

impl Store for Refusing {
    async fn get(&self, _: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Err(self.0)
    }
    async fn set(&self, _: &str, _: &[u8]) -> Result<(), StoreError> {
        Err(self.0)
    }
    async fn delete(&self, _: &str) -> Result<(), StoreError> {
        Err(self.0)
    }
    async fn list(&self, _: &str, _: Option<&str>) -> Result<Page, StoreError> {
        Err(self.0)
    }
    async fn compare_and_swap(
        &self,
        _: &str,
        _: Option<&[u8]>,
        _: &[u8],
    ) -> Result<bool, StoreError> {
        Err(self.0)
    }
}

/// A store on which every compare-and-swap loses, as if another writer always won.
struct Contended(MemoryStore);

impl Store for Contended {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.0.get(key).await
    }
    async fn set(&self, key: &str, value: &[u8]) -> Result<(), StoreError> {
        self.0.set(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.0.delete(key).await
    }
    async fn list(&self, prefix: &str, cursor: Option<&str>) -> Result<Page, StoreError> {
        self.0.list(prefix, cursor).await
    }
    async fn compare_and_swap(
        &self,
        _: &str,
        _: Option<&[u8]>,
        _: &[u8],
    ) -> Result<bool, StoreError> {
        Ok(false)
    }
}

#[test]
fn an_old_str_found_100000_times_is_refused_within_the_read_limit() {
    let limits = Limits {
        max_file_bytes: 1 << 20,
        ..Limits::default()
    };
    let engine = Engine::new(
        MemoryStore::new(),
        Config {
            limits,
            ..Config::default()
        },
    );
    block_on(engine.run(create("/memories/x.md", &"x\n".repeat(100_000)))).unwrap();
    let err = block_on(engine.run(Command::StrReplace {
        path: "/memories/x.md".into(),
        old_str: "x".into(),
        new_str: "y".into(),
    }))
    .unwrap_err();
    let text = err.to_string();
    assert!(text.chars().count() <= 100_000, "{} characters", text.len());
    assert!(text.starts_with(
        "No replacement was performed. Multiple occurrences of old_str `x` in lines: 1, 2, 3, "
    ));
    let (list, tail) = text.rsplit_once(" and ").unwrap();
    let shown = list
        .rsplit_once("in lines: ")
        .unwrap()
        .1
        .split(", ")
        .count();
    assert_eq!(
        tail,
        format!(
            "{} more. Please ensure it is unique",
            fmt_thousands(100_000 - shown)
        )
    );
    println!("{shown} lines listed, {} characters", text.len());
    assert!(shown > 10_000, "{shown}");

    // Two occurrences: listed whole, as the spec says.
    block_on(engine.run(create("/memories/two.md", "ab\nab"))).unwrap();
    let two = block_on(engine.run(Command::StrReplace {
        path: "/memories/two.md".into(),
        old_str: "ab".into(),
        new_str: "c".into(),
    }))
    .unwrap_err();
    assert_eq!(
        two.to_string(),
        "No replacement was performed. Multiple occurrences of old_str `ab` in lines: 1, 2. Please ensure it is unique"
    );
}

fn fmt_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn error_types_are_errors_and_a_store_failure_is_the_source() {
    fn is_error<E: core::error::Error + 'static>() {}
    is_error::<memdir::ToolError>();
    is_error::<memdir::InputError>();
    is_error::<memdir::PathError>();
    is_error::<memdir::Refusal>();
    is_error::<memdir::LimitError>();
    is_error::<memdir::StoreError>();
    is_error::<memdir::MountError>();
    is_error::<memdir::ToolsetError>();
    is_error::<memdir::ApiError>();

    use core::error::Error;
    let failed = memdir::ToolError::Storage(memdir::StoreError::Unavailable);
    let source = failed.source().map(ToString::to_string);
    assert_eq!(
        source,
        Some(memdir::StoreError::Unavailable.to_string()),
        "a storage failure names the store's error as its source"
    );
    let input = memdir::ToolError::Input(memdir::InputError::NotJson);
    assert!(
        input.source().is_none(),
        "its text is the input error's own"
    );
}

#[test]
fn a_faces_own_failures_have_their_words_and_kinds() {
    use memdir::FaceError;
    assert_eq!(
        FaceError::Closed.to_string(),
        "This memory was closed; open it again to use it."
    );
    assert_eq!(
        FaceError::Stopped.to_string(),
        "memdir stopped unexpectedly while running this command"
    );
    assert_eq!(FaceError::ALL.map(FaceError::kind), ["closed", "internal"]);
}
