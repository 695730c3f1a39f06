// Package export writes archived submissions as a file a person downloads:
// CSV for spreadsheet programs and NDJSON for scripts. The JSON API and the
// dashboard both serve exports through it, so the file is the same whichever
// port serves it.
//
// # Streaming
//
// An encoder writes each row as it is given and keeps nothing of it, so an
// export of any length runs in the same memory. That is why the columns are
// given up front (the caller lists the field names from what is stored,
// without decrypting anything) and why a row holding a field that is not a
// column is refused with ErrUnknownField rather than growing the header:
// the header is already written. The encoders buffer output and flush it
// when their buffer fills and on Flush; they count the rows they wrote, for
// the access record of the export.
//
// # Serving
//
// A port sets Content-Type from Format.ContentType and Content-Disposition
// from ContentDisposition (attachment, so a browser saves the file and never
// renders it), lists the columns, then encodes each row as it reads it and
// flushes at the end. Once the first bytes are sent the status cannot change,
// so a port that fails mid-export must break the connection rather than end
// the response as if the file were whole (net/http does so on a panic with
// http.ErrAbortHandler, which the ports' recover middleware then has to let
// through): a download that fails shows it, one cut short would not.
//
// # Columns
//
// Every file has the columns submittedAt (RFC 3339, UTC, whole seconds),
// submissionId and requestId, then one column per field name, in the order
// given. Field names come from submitters, so a field may be named like a
// fixed column, or like the label another field was given: a column's label
// is its name, or, where an earlier column already has that label, the name
// followed by " (2)", " (3)" and so on. The fixed columns come first and so
// always keep their names, and no NDJSON object has a key twice.
//
// RowOf makes an archived submission a row for the columns FieldColumns
// lists: its text fields, each with one value (a name given more than once
// has its values joined with ", ", as they are when a submission is
// accepted), then the column attachments, which holds the names of its
// files (the header cannot have a column per file field: only the text
// fields' names are known without opening a submission). A cell may hold
// several values, as attachments does: in CSV they are separated by a line
// break; in NDJSON a field with one value is a string and one with several
// is an array of strings. A field a row does not have is an empty cell in CSV
// and an absent key in NDJSON, so "not submitted" and "submitted empty" stay
// apart where the format can say so.
//
// # CSV
//
// The CSV follows RFC 4180: comma-separated, CRLF line ends, quotes inside a
// quoted cell doubled. It starts with a UTF-8 byte order mark, which spreadsheet
// programs need to read UTF-8 as UTF-8 rather than as the system's code page.
// A cell is quoted unless it is made only of ASCII letters, digits and
// '.', '_', ':' and '-' (the fixed header names, times and ids, plain numbers
// and words): quoting every other cell, not only those holding a comma, keeps
// a spreadsheet that splits on ';' or tab (as Excel does in many locales)
// from cutting a value into cells of its own. The first cell of the file is
// always the bare word submittedAt, so a reader that does not strip the BOM
// sees "\ufeffsubmittedAt" and not a quote error. A line break inside a value
// stays inside its quoted cell; a reader gets it back as "\n", as
// encoding/csv and spreadsheet programs read CRLF inside a quoted cell.
//
// # CSV injection
//
// A spreadsheet program evaluates a cell that starts with '=', '+', '-' or
// '@' as a formula, which can run commands (DDE) or send the sheet's data
// away (HYPERLINK, WEBSERVICE). Following OWASP, a cell whose first character
// is one of these, a tab or a carriage return (or a NUL, which OWASP's ASVS
// adds) is made inert by a leading single quote ('), which has spreadsheet
// programs read the cell as text. The check also catches:
//   - the full-width forms '＝', '＋', '－' and '＠' (U+FF1D, U+FF0B, U+FF0D,
//     U+FF20), which some spreadsheet programs fold to their ASCII forms;
//   - any of these after leading white space (spaces, line breaks, no-break
//     spaces), which an importer that trims cells would otherwise expose.
//
// It applies to every cell, header cells too: field names come from
// submitters. The cost is that a value like "-5" or "+49 30 1234" is shown as
// '-5 or '+49 30 1234, text rather than a number: OWASP's advice, kept
// because telling a harmless number from a formula is how such defences fail.
// A script reading the CSV gets the quote as part of the value; NDJSON is the
// format for scripts.
//
// # NDJSON
//
// NDJSON (application/x-ndjson) is one JSON object per line, "\n"-terminated,
// keys in column order. JSON strings are data to every JSON reader (no JSON
// parser evaluates a value, and a spreadsheet importing JSON types it as
// text), so values are written as they are, with no quote prefix, and
// without HTML escaping ('<', '>' and '&' stay themselves: the file is not
// HTML).
//
// In both formats, each byte of a value or a field name that is not valid
// UTF-8 is written as U+FFFD, as encoding/json writes it (values were
// checked when the submission was accepted; this keeps the file valid
// UTF-8 whatever it is given).
package export
