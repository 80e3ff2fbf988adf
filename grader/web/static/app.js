// Small enhancements only: every page works without JavaScript.
document.addEventListener("DOMContentLoaded", () => {
  // A Copy button for a freshly made API token; the status next to it says when it is done.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    const status = button.parentElement.querySelector("[data-copied]");
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        if (status) status.textContent = status.dataset.copied;
      } catch (error) {
        button.hidden = true;  // no clipboard here after all: the token stays there to select by hand
      }
    });
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
  // A display formula wider than its column scrolls in its box: while it does, the box is a tab stop named
  // by the formula's words, so a keyboard can scroll it (WCAG 2.1.1); when it fits, it is no stop at all.
  const scrollable = () => {
    for (const box of document.querySelectorAll(".math")) {  // again each time: the live preview adds some
      const math = box.querySelector("math");
      if (box.scrollWidth > box.clientWidth && math) {
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", math.getAttribute("aria-label") || math.getAttribute("alttext") || "");
      } else {
        for (const name of ["tabindex", "role", "aria-label"]) box.removeAttribute(name);
      }
    }
  };
  if ("ResizeObserver" in window) new ResizeObserver(scrollable).observe(document.body);
  // Giving up is asked in the browser's own dialog; confirmed, the button says so and the server asks no more
  // (without JavaScript its value stays "ask", and the server asks on a page of its own).
  for (const button of document.querySelectorAll("button[data-confirm]")) {
    button.addEventListener("click", (event) => {
      if (window.confirm(button.dataset.confirm)) button.value = "yes";
      else event.preventDefault();
    });
  }
  // Ctrl/Cmd+Enter submits the answer form from any field.
  for (const form of document.querySelectorAll("form.answers")) {
    form.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) form.requestSubmit();
    });
  }
  // Code being graded: ask for the page again in the background and show it once the result is in, rather
  // than reloading every few seconds (which restarts a screen reader). Gives up after five minutes.
  if (document.querySelector("[data-pending]")) {
    let tries = 0;
    const poll = async () => {
      try {
        const response = await fetch(window.location.href, { credentials: "same-origin", cache: "no-store" });
        // The attribute, not the text: the learner's own code in the page may contain the word.
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        if (response.ok && !page.querySelector("[data-pending]")) {
          window.location.replace(window.location.href);
          return;
        }
      } catch (error) {
        // Offline for a moment: the next try may get through.
      }
      if (++tries < 150) setTimeout(poll, 2000);
    };
    setTimeout(poll, 2000);
  }
  // Live preview on the authoring page: send the source, show the rendered variant.
  const source = document.querySelector("[data-preview-source]");
  const target = document.querySelector("[data-preview-target]");
  if (source && target) {
    let timer = null;
    let sent = 0;  // answers can arrive out of order: only the latest request's may be shown
    const stale = () => {
      if (target.querySelector("[data-stale-note]")) return;
      const note = document.createElement("p");
      note.className = "notice warn";
      note.setAttribute("role", "status");
      note.dataset.staleNote = "";
      note.textContent = target.dataset.stale;
      target.prepend(note);
    };
    const refresh = () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const mine = ++sent;
        const body = new FormData(source.form);
        let html = null;
        try {
          const response = await fetch(source.dataset.previewSource, { method: "POST", body });
          if (response.ok || response.status === 422) html = await response.text();
        } catch (error) {
          html = null;  // offline, or the server went away: say the preview is behind
        }
        if (mine !== sent) return;  // a newer request was sent meanwhile: its answer decides
        if (html !== null) target.innerHTML = html;
        else stale();
      }, 500);
    };
    // Every field of the form feeds the preview, not only the marked one.
    source.form.addEventListener("input", refresh);
    source.form.addEventListener("change", refresh);
  }
  // The gradebook says how many exercise columns are off screen on either side, as it scrolls.
  for (const box of document.querySelectorAll(".gradebook-scroll")) {
    const note = box.parentElement.querySelector("[data-offscreen]");
    const learner = box.querySelector("thead th.email");
    if (!note || !learner) continue;
    const count = () => {
      const left = learner.getBoundingClientRect().right;
      const right = box.getBoundingClientRect().right;
      let before = 0;
      let after = 0;
      for (const th of box.querySelectorAll("thead th.vert")) {
        const edges = th.getBoundingClientRect();
        if (edges.left < left - 1) before += 1;
        else if (edges.right > right + 1) after += 1;
      }
      if (before || after) note.textContent = note.dataset.template.replace("{left}", before).replace("{right}", after);
      else note.textContent = note.dataset.all;
    };
    // A cell reached by keyboard shows whole, clear of the learner column: the scroll box's padding for it
    // is only a hint to the browser, which may leave a focused cell half under the column.
    const reveal = (cell) => {
      const edges = cell.getBoundingClientRect();
      const clear = learner.getBoundingClientRect().right;
      const right = box.getBoundingClientRect().left + box.clientWidth;
      if (edges.left < clear) box.scrollLeft -= clear - edges.left;
      else if (edges.right > right) box.scrollLeft += Math.min(edges.right - right, edges.left - clear);
    };
    box.addEventListener("focusin", (event) => {
      const cell = event.target.closest("td");
      if (!cell) return;
      reveal(cell);
      requestAnimationFrame(() => reveal(cell));  // after the browser's own scrolling, if any
    });
    box.addEventListener("scroll", count, { passive: true });
    window.addEventListener("resize", count);
    count();
  }
});
