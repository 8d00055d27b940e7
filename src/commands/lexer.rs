//! Splits a command line into words and double-quoted strings (docs/reference.md#reading-a-command). Inside quotes
//! `\"` and `\\` are escapes; any other backslash is kept as written, so paths and regexes
//! need no doubling.

/// One argument of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// A run of non-blank characters; may be a flag.
    Word(String),
    /// A double-quoted string, unescaped; never a flag.
    Quoted(String),
}

impl Token {
    pub(crate) fn into_text(self) -> String {
        match self {
            Token::Word(s) | Token::Quoted(s) => s,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LexError {
    /// 1-based character column of the opening quote within the tokenized text.
    Unterminated { column: usize },
    /// A quote inside a word, or text glued to a closing quote.
    Stray { word: String },
}

pub(crate) fn tokenize(line: &str) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = line.chars().collect();
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let ch = chars[at];
        if ch.is_whitespace() {
            at += 1;
        } else if ch == '"' {
            let (text, next) = quoted(&chars, at)?;
            if let Some(&glued) = chars.get(next) {
                if !glued.is_whitespace() {
                    let end = word_end(&chars, next);
                    let word: String = chars[at..end].iter().collect();
                    return Err(LexError::Stray { word });
                }
            }
            tokens.push(Token::Quoted(text));
            at = next;
        } else {
            let end = word_end(&chars, at);
            let word: String = chars[at..end].iter().collect();
            if word.contains('"') {
                return Err(LexError::Stray { word });
            }
            tokens.push(Token::Word(word));
            at = end;
        }
    }
    Ok(tokens)
}

fn word_end(chars: &[char], from: usize) -> usize {
    chars[from..]
        .iter()
        .position(|c| c.is_whitespace())
        .map_or(chars.len(), |n| from + n)
}

/// Reads the string whose opening quote is at `open`; returns it and the index after the
/// closing quote.
fn quoted(chars: &[char], open: usize) -> Result<(String, usize), LexError> {
    let mut text = String::new();
    let mut at = open + 1;
    while let Some(&ch) = chars.get(at) {
        match ch {
            '"' => return Ok((text, at + 1)),
            '\\' => {
                if let Some(&escaped @ ('"' | '\\')) = chars.get(at + 1) {
                    text.push(escaped);
                    at += 2;
                } else {
                    text.push('\\');
                    at += 1;
                }
            }
            _ => {
                text.push(ch);
                at += 1;
            }
        }
    }
    Err(LexError::Unterminated { column: open + 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Token {
        Token::Word(s.to_owned())
    }
    fn q(s: &str) -> Token {
        Token::Quoted(s.to_owned())
    }

    #[test]
    fn words_and_quoted_strings() {
        let cases: Vec<(&str, Vec<Token>)> = vec![
            ("", vec![]),
            ("  new  ", vec![w("new")]),
            ("a\tb", vec![w("a"), w("b")]),
            (r#"--goal "two words""#, vec![w("--goal"), q("two words")]),
            (r#""""#, vec![q("")]),
            (r#""say \"hi\"""#, vec![q(r#"say "hi""#)]),
            (r#""back \\ slash""#, vec![q(r"back \ slash")]),
            (r#""C:\path\n""#, vec![q(r"C:\path\n")]),
            (r#""trailing \\""#, vec![q("trailing \\")]),
            (r#""--flag""#, vec![q("--flag")]),
            ("it's", vec![w("it's")]),
            ("ünïcödé “x”", vec![w("ünïcödé"), w("“x”")]),
        ];
        for (line, expected) in cases {
            assert_eq!(tokenize(line), Ok(expected), "{line:?}");
        }
    }

    #[test]
    fn malformed_quoting() {
        let cases: Vec<(&str, LexError)> = vec![
            (r#"--goal "open"#, LexError::Unterminated { column: 8 }),
            (r#""escaped end\""#, LexError::Unterminated { column: 1 }),
            (
                r#"a"b"#,
                LexError::Stray {
                    word: r#"a"b"#.into(),
                },
            ),
            (
                r#""a"b c"#,
                LexError::Stray {
                    word: r#""a"b"#.into(),
                },
            ),
            (
                r#""a""b""#,
                LexError::Stray {
                    word: r#""a""b""#.into(),
                },
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(tokenize(line), Err(expected), "{line:?}");
        }
    }
}
