// Small enhancements only: every page works without JavaScript.
document.addEventListener("DOMContentLoaded", () => {
  // Copy a freshly made API token with one click.
  for (const el of document.querySelectorAll("[data-copy]")) {
    el.title = "Click to copy";
    el.addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText(el.textContent.trim()));
  }
  // Due dates come in UTC; show them in the reader's own time zone, in the page's language.
  const local = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
  });
  for (const el of document.querySelectorAll("time.local-time")) {
    const moment = new Date(el.getAttribute("datetime"));
    if (!Number.isNaN(moment.getTime())) {
      el.title = el.textContent;
      el.textContent = local.format(moment);
    }
  }
  // Ctrl/Cmd+Enter submits the answer form from any field.
  for (const form of document.querySelectorAll("form.answers")) {
    form.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) form.requestSubmit();
    });
  }
  // Live preview on the authoring page: send the source, show the rendered variant.
  const source = document.querySelector("[data-preview-source]");
  const target = document.querySelector("[data-preview-target]");
  if (source && target) {
    let timer = null;
    const refresh = () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const body = new FormData(source.form);
        const response = await fetch(source.dataset.previewSource, { method: "POST", body });
        if (response.ok || response.status === 422) target.innerHTML = await response.text();
      }, 500);
    };
    // Every field of the form feeds the preview, not only the marked one.
    source.form.addEventListener("input", refresh);
    source.form.addEventListener("change", refresh);
  }
});
