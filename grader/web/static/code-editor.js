// The code page's editor, and the exercise editor's YAML tab: CodeMirror (vendored, see
// vendor/codemirror-*/README) laid over the textarea, in the language its data-code-editor names
// ("python" when empty, or "yaml"). Without JavaScript the textarea is the editor; with it, CodeMirror
// writes its text back into the textarea when the form is sent (fromTextArea does this on submit,
// Ctrl/Cmd+Enter's requestSubmit too), and on every change for the YAML tab's live preview.
const LANGUAGES = {
  python: { mode: { name: "python", version: 3 }, unit: 4 },
  yaml: { mode: "yaml", unit: 2 },
};
document.addEventListener("DOMContentLoaded", () => {
  const area = document.querySelector("textarea[data-code-editor]");
  if (!area || typeof CodeMirror === "undefined") return;
  const language = LANGUAGES[area.dataset.codeEditor] || LANGUAGES.python;
  const label = document.querySelector(`label[for="${area.id}"]`);
  // Tab indents, so a keyboard would be caught in the editor: Esc, then Tab, moves on (said under it).
  let leaving = false;
  const indent = (cm) => {
    if (cm.somethingSelected()) {
      cm.indentSelection("add");
    } else {
      const column = cm.getCursor().ch;
      cm.replaceSelection(" ".repeat(language.unit - (column % language.unit)), "end");
    }
    return undefined;
  };
  const unindent = (cm) => cm.indentSelection("subtract");
  const editor = CodeMirror.fromTextArea(area, {
    mode: language.mode,
    lineNumbers: true,
    indentUnit: language.unit,
    tabSize: language.unit,
    indentWithTabs: false,
    matchBrackets: true,
    viewportMargin: Infinity,
    lineWrapping: true,  // a long line wraps rather than scrolling a box a keyboard could not reach on a phone  // at most 64 KB of code: every line is laid out, so the page's own search finds it
    autofocus: area.autofocus,
    screenReaderLabel: label ? label.textContent.trim() : "",
    extraKeys: { Tab: indent, "Shift-Tab": unindent, Esc: () => { leaving = true; } },
  });
  editor.on("keydown", (cm, event) => {
    // Ignored by CodeMirror, so the browser's own Tab moves the focus on.
    if (event.key === "Tab" && leaving) event.codemirrorIgnore = true;
    else if (event.key !== "Escape" && event.key !== "Shift") leaving = false;
  });
  editor.on("blur", () => { leaving = false; });
  // The live preview (app.js) reads the form: keep the textarea in step and say it changed.
  if (area.hasAttribute("data-preview-source")) {
    editor.on("change", () => {
      editor.save();
      area.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }
  const field = editor.getInputField();
  for (const name of ["aria-invalid", "aria-describedby"]) {
    if (area.hasAttribute(name)) field.setAttribute(name, area.getAttribute(name));
  }
  const help = document.getElementById("editor-help");
  if (help) {
    help.hidden = false;
    field.setAttribute("aria-describedby", [field.getAttribute("aria-describedby"), help.id].filter(Boolean).join(" "));
  }
  // A click on the label goes to the editor, as it went to the textarea.
  if (label) label.addEventListener("click", (event) => { event.preventDefault(); editor.focus(); });
});
