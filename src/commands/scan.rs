//! Line-level reading of a comment's Markdown: which lines are `/audit` command lines and
//! which fenced blocks there are, skipping `>` quotes and fenced code (docs/reference.md#reading-a-command).
//!
//! Quotes are read line by line: a line is quoted when it starts with `>`. Markdown's lazy
//! continuation (an unmarked line right under a quote) is not followed, because a command
//! typed under a quoted comment is meant as a command.

/// A line outside quotes and fences that starts with `/audit` and a space or its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommandLine<'a> {
    /// 1-based.
    pub(crate) line: usize,
    /// What follows `/audit`.
    pub(crate) rest: &'a str,
    /// Characters of the line before `rest`, to report columns of the whole line.
    pub(crate) rest_column: usize,
}

/// A fenced code block outside quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fence {
    /// 1-based line of the opening fence.
    pub(crate) line: usize,
    /// The first word of the info string, lowercased (`json`, `text`, or anything).
    pub(crate) lang: String,
    pub(crate) content: String,
    /// False when the comment ended inside the block.
    pub(crate) closed: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Scan<'a> {
    pub(crate) commands: Vec<CommandLine<'a>>,
    pub(crate) fences: Vec<Fence>,
    /// 1-based line of the first non-blank line outside quotes and fences.
    pub(crate) first_plain: Option<usize>,
}

impl<'a> Scan<'a> {
    /// The command line when the comment is a command: its first plain line is one.
    pub(crate) fn command(&self) -> Option<&CommandLine<'a>> {
        let first = self.commands.first()?;
        (Some(first.line) == self.first_plain).then_some(first)
    }
}

struct Open {
    line: usize,
    marker: char,
    len: usize,
    indent: usize,
    lang: String,
    content: Vec<String>,
}

impl Open {
    fn finish(self, closed: bool) -> Fence {
        Fence {
            line: self.line,
            lang: self.lang,
            content: self.content.join("\n"),
            closed,
        }
    }
}

pub(crate) fn scan(body: &str) -> Scan<'_> {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let mut out = Scan::default();
    let mut open: Option<Open> = None;
    for (index, raw) in body.split('\n').enumerate() {
        let number = index + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(mut fence) = open.take() {
            if closes(line, &fence) {
                out.fences.push(fence.finish(true));
            } else {
                fence
                    .content
                    .push(strip_indent(line, fence.indent).to_owned());
                open = Some(fence);
            }
            continue;
        }
        let Some((indent, text)) = markdown_indent(line) else {
            // Four columns or more: an indented code block, or blank.
            if !line.trim().is_empty() && out.first_plain.is_none() {
                out.first_plain = Some(number);
            }
            continue;
        };
        if text.starts_with('>') {
            continue;
        }
        if let Some(fence) = opens(text, indent, number) {
            open = Some(fence);
            continue;
        }
        if text.trim().is_empty() {
            continue;
        }
        if out.first_plain.is_none() {
            out.first_plain = Some(number);
        }
        if let Some(rest) = command_rest(text) {
            let before = line.len() - rest.len();
            let rest_column = line.get(..before).unwrap_or_default().chars().count();
            out.commands.push(CommandLine {
                line: number,
                rest,
                rest_column,
            });
        }
    }
    if let Some(fence) = open {
        out.fences.push(fence.finish(false));
    }
    out
}

/// `Some((indent, rest))` when the line is indented by at most three columns.
fn markdown_indent(line: &str) -> Option<(usize, &str)> {
    let mut columns = 0;
    for (at, ch) in line.char_indices() {
        match ch {
            ' ' => columns += 1,
            '\t' => columns += 4 - columns % 4,
            _ => return (columns <= 3).then(|| (columns, &line[at..])),
        }
        if columns > 3 {
            return None;
        }
    }
    Some((columns, ""))
}

fn command_rest(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("/audit")?;
    match rest.chars().next() {
        None | Some(' ' | '\t') => Some(rest),
        Some(_) => None,
    }
}

fn fence_run(text: &str) -> Option<(char, usize)> {
    let marker = text.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = text.chars().take_while(|c| *c == marker).count();
    (len >= 3).then_some((marker, len))
}

fn opens(text: &str, indent: usize, line: usize) -> Option<Open> {
    let (marker, len) = fence_run(text)?;
    // The run is ASCII, so `len` is also its byte length.
    let info = text.get(len..).unwrap_or_default().trim();
    if marker == '`' && info.contains('`') {
        return None; // inline code such as ```a``` is not a fence
    }
    let lang = info
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_lowercase();
    Some(Open {
        line,
        marker,
        len,
        indent,
        lang,
        content: Vec::new(),
    })
}

fn closes(line: &str, open: &Open) -> bool {
    let Some((_, text)) = markdown_indent(line) else {
        return false;
    };
    match fence_run(text) {
        Some((marker, len)) => {
            marker == open.marker
                && len >= open.len
                && text.get(len..).unwrap_or_default().trim().is_empty()
        }
        None => false,
    }
}

/// Content lines lose up to the opening fence's indentation, as Markdown renders them.
fn strip_indent(line: &str, indent: usize) -> &str {
    let spaces = line.chars().take(indent).take_while(|c| *c == ' ').count();
    &line[spaces..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_need_a_matching_closing_run() {
        let s = scan("/audit report\n````json\n```\n{}\n````\n~~~text\nAUDIT: FAIL\n~~~~\n");
        assert_eq!(s.fences.len(), 2);
        assert_eq!(s.fences[0].lang, "json");
        assert_eq!(s.fences[0].content, "```\n{}");
        assert!(s.fences[0].closed);
        assert_eq!(s.fences[1].lang, "text");
        assert_eq!(s.fences[1].content, "AUDIT: FAIL");
    }

    #[test]
    fn closing_fences_carry_nothing_after_and_are_not_indented_as_code() {
        let s = scan("```json\n``` not a close\n    ```\n```\n");
        assert_eq!(s.fences.len(), 1);
        assert_eq!(s.fences[0].content, "``` not a close\n    ```");
        assert!(s.fences[0].closed);
    }

    #[test]
    fn tilde_does_not_close_backticks_and_unclosed_runs_to_the_end() {
        let s = scan("```\n~~~\n/audit gate\n");
        assert_eq!(s.fences.len(), 1);
        assert!(!s.fences[0].closed);
        assert!(s.commands.is_empty());
    }

    #[test]
    fn indented_fence_content_loses_the_fence_indent() {
        let s = scan("  ```text\n    a\n b\n  ```");
        assert_eq!(s.fences[0].content, "  a\nb");
    }

    #[test]
    fn inline_triple_backticks_are_not_a_fence() {
        let s = scan("```a``` text\n/audit gate");
        assert!(s.fences.is_empty());
        assert_eq!(s.first_plain, Some(1));
        assert!(s.command().is_none());
    }

    #[test]
    fn indented_code_lines_are_not_commands_but_are_content() {
        let s = scan("    /audit gate\n/audit status");
        assert_eq!(s.first_plain, Some(1));
        assert_eq!(s.commands.len(), 1);
        assert!(s.command().is_none());
        let s = scan("\t/audit gate");
        assert!(s.commands.is_empty());
        let s = scan("   /audit gate");
        assert!(s.command().is_some());
    }
}
