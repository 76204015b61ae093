/* The doctor on the site: paste a traceback (and the code that failed), get the answer of
 * `autograd-doctor`, offline. A port of autograd_pitfalls/pasted.py, doctor.py and
 * doctor_answer.text_lines, reading the index that the site's build exports
 * (site_src/doctor_data.py -> _static/doctor_index.js). tests/test_doctor_page.py runs this file
 * in Node on the doctor's test cases and compares its lines with the command's, one for one:
 * change both together.
 */
(function (root) {
  "use strict";

  // --- pasted.py -------------------------------------------------------------------------------
  const EXCEPTION = /(?<![A-Za-z0-9])(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Failed|Interrupt)(?:\[[^\]]*\])?: ?(.*)/;
  const ANSI = /\x1b\[[0-9;]*m/g;
  const RANK_PREFIX = /^\s*\[(?:rank|default)\d+\]:\s?/;
  const STOP_LINE = /^\s*(Traceback \(most recent call last\)|File "|During handling of|The above exception|Set TORCH_|You can suppress|Exception raised from|frame #\d|-{5,})/;
  const CUT_MARK = /\s*(\.\.\.|…)\s*$/;
  const PYTHON_FRAME = /^\s*File "(?<path>[^"]+)"\s*,?\s*(?:line (?<line>\d+))?(?:, in (?<function>.+))?/;
  const IPYTHON_FRAME = /^\s*(?:File (?<path>\S.*?):(?<line>\d+), in (?<function>[^(\s]+)|(?<cell>Cell In ?\[\d*\]|Input In ?\[\d*\]), line (?<cell_line>\d+))/;
  const IPYTHON_CODE = /^\s*(?:-*>\s*)?\d+\s(?<code>.*)$/;
  const CARETS = /^\s*[\^~]+\s*$/;
  const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

  function splitlines(text) {  // Python's str.splitlines()
    const lines = text.split(LINE_BREAK);
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    return lines;
  }
  const squeeze = (text) => text.split(/\s+/).filter(Boolean).join(" ");
  const noTicks = (text) => text.replace(/`/g, "");  // Markdown's code marks, as pasted from a page
  const plainQuotes = (text) => text.replace(/[\u2018\u2019]/g, "'").replace(/[\u201c\u201d]/g, '"');
  const cleanLines = (text) => splitlines(plainQuotes(text)).map((line) => line.replace(ANSI, "").replace(RANK_PREFIX, ""));

  function messagesIn(text) {
    const lines = cleanLines(text);
    const found = [];
    lines.forEach((line, i) => {
      const head = EXCEPTION.exec(line);
      if (!head) return;
      const body = [head[1]];
      for (const more of lines.slice(i + 1)) {
        if (!more.trim() || STOP_LINE.test(more) || EXCEPTION.test(more)) break;
        body.push(more);
      }
      found.push(squeeze(body.join(" ")).replace(CUT_MARK, ""));
    });
    return found.reverse().filter(Boolean);
  }

  function read(text, code, codeLabel, library) {
    const lines = cleanLines(text);
    const frames = [];
    const own = splitlines(plainQuotes(code)).map((line, n) => [n + 1, line.trim()]).filter(([, line]) => line)
      .map(([n, line]) => ({ where: `${codeLabel}, line ${n}`, text: line }));
    const isFrame = (line) => PYTHON_FRAME.exec(line) || IPYTHON_FRAME.exec(line);
    let inMessage = false;
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      const header = isFrame(line);
      if (header) {
        const g = header.groups;
        const path = (g.path || g.cell || "").trim();
        const number = g.line || g.cell_line;
        const quoted = [];
        let k = i + 1;
        while (k < lines.length && lines[k].trim() && !(isFrame(lines[k]) || EXCEPTION.test(lines[k]))) {
          if (!CARETS.test(lines[k])) {
            const numbered = IPYTHON_CODE.exec(lines[k]);
            quoted.push((numbered ? numbered.groups.code : lines[k]).trim());
          }
          k += 1;
        }
        const isLibrary = library.test(path);
        frames.push({ path, function: (g.function || "").trim(), code: quoted.join("\n"), library: isLibrary });
        if (!isLibrary) {
          const name = path.split("/").pop().split("\\").pop();
          const where = number ? `${name}, line ${number}` : path;
          for (const q of quoted) if (q) own.push({ where, text: q });
        }
        i = k;
        inMessage = false;
        continue;
      }
      if (EXCEPTION.test(line)) inMessage = true;
      else if (!line.trim() || STOP_LINE.test(line)) inMessage = false;
      else if (!inMessage && line.trim() && !line.trim().startsWith("Traceback")) {
        own.push({ where: `the text you pasted, line ${i + 1}`, text: line.trim().replace(/^`+|`+$/g, "") });
      }
      i += 1;
    }
    return { messages: messagesIn(text), frames, code: own };
  }

  // --- doctor.py -------------------------------------------------------------------------------
  const TYPE_PREFIX = /^[A-Z]\w*(?:Error|Exception): /;

  function sharedStart(a, b) {
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n += 1;
    return n;
  }

  function matchLength(message, entry, limits) {
    let best = 0;
    for (const pattern of entry.patterns) {
      const m = new RegExp(`^(?:${pattern})`).exec(message);
      if (m) best = Math.max(best, m[0].length, 1);
    }
    const plain = noTicks(message);
    for (const known of entry.messages) {
      const n = sharedStart(plain, known);
      if (n === known.length || (n === plain.length && n >= limits.MIN_CUT) || n >= limits.MIN_SHARED) {
        best = Math.max(best, n);
      }
    }
    return best;
  }

  function matchAnywhere(text, entry) {
    const found = [];
    for (const pattern of entry.patterns) {
      const m = new RegExp(pattern).exec(text);
      if (m) found.push(m[0].length);
    }
    const plain = noTicks(text);
    for (const known of entry.messages) if (plain.includes(known)) found.push(known.length);
    return found.length ? Math.max(...found) : 0;
  }

  function bestEntry(message, score, data) {
    const scores = data.entries.map((e) => score(message, e, data.limits));
    const top = Math.max(...scores);
    if (top > 0 && scores.filter((s) => s === top).length === 1) return data.entries[scores.indexOf(top)];
    return null;
  }

  function snippet(text, limits) {
    text = squeeze(text);
    return text.length <= limits.SNIPPET ? text : text.slice(0, limits.SNIPPET - 1) + "…";
  }

  function shortPath(path) {
    const parts = path.split(/site-packages[/\\]|dist-packages[/\\]|[/\\]lib[/\\]python[\d.]+[/\\]/);
    return parts[parts.length - 1].replace(/\\/g, "/");
  }

  function pointFound(point, message, seen, limits) {
    const pattern = new RegExp(point.match);
    if (point.in === "message") return pattern.test(message) ? point.says : null;
    if (point.in === "code") {
      for (const line of seen.code) {
        if (pattern.test(line.text)) return `${point.says}: ${line.where}: \`${snippet(line.text, limits)}\``;
      }
      return null;
    }
    for (const frame of seen.frames) {
      if (frame.library && (pattern.test(frame.path) || pattern.test(frame.function) || pattern.test(frame.code))) {
        return `${point.says}: \`${snippet(shortPath(frame.path), limits)}\``;
      }
    }
    return null;
  }

  function rank(entry, message, seen, limits) {
    const ranked = [];
    const others = [];
    entry.causes.forEach((cause, k) => {
      const found = [];
      for (const p of cause.points) {
        const line = pointFound(p, message, seen, limits);
        if (line) found.push([p.weight, line]);
      }
      const score = found.reduce((sum, [w]) => sum + w, 0);
      const item = { position: k + 1, cause, score, because: found.filter(([w]) => w > 0).map(([, l]) => l) };
      (score > 0 ? ranked : others).push(item);
    });
    ranked.sort((a, b) => b.score - a.score || a.position - b.position);
    return [ranked, others];
  }

  function withRanking(message, entry, seen, limits) {
    const [ranked, others] = rank(entry, message, seen, limits);
    let unknownCase = null;
    if (entry.family && !ranked.length) {
      const m = new RegExp(entry.family.case).exec(message);
      if (m) unknownCase = m[1];
    }
    return { message, entry, ranked, others, unknownCase };
  }

  function diagnose(text, code, codeLabel, data) {
    const seen = read(text, code || "", codeLabel || "your code", new RegExp(data.library));
    const found = [];
    for (const message of seen.messages) {
      const entry = bestEntry(message, matchLength, data);
      if (entry && found.every((d) => d.entry.id !== entry.id)) found.push(withRanking(message, entry, seen, data.limits));
    }
    if (!found.length && !seen.messages.length) {
      const whole = squeeze(plainQuotes(text).replace(ANSI, "")).replace(CUT_MARK, "");
      const entry = bestEntry(whole, matchAnywhere, data);
      return [entry ? withRanking(whole, entry, seen, data.limits) : { message: whole, entry: null }];
    }
    return found.length ? found : [{ message: seen.messages[0], entry: null }];
  }

  // --- doctor_answer.text_lines ------------------------------------------------------------------
  const plain = (markdown) => markdown.replace(/\[([^\]]*)\]\(([^)]*)\)/g,
    (all, text, url) => (url.includes("notebooks/") ? text : `${text} (${url})`));

  function oneLine(text, width) {
    text = squeeze(plain(text));
    if (text.length <= width) return text;
    const cut = text.slice(0, width - 1).trimEnd();
    return cut + ((cut.split("`").length - 1) % 2 ? "`…" : "…");
  }

  function full(n, r) {
    const c = r.cause;
    const where = c.shown_in.map((p) => `${p.address} ${p.section}`.trimEnd()).join("; ");
    return [`${n}. ${c.cause}`, ...r.because.map((line) => `   because: ${line}`),
      `   fix: ${c.fix}`, `   shown in: ${where}`, `   reports: ${c.reports}`];
  }

  function textLines(d, data) {
    const W = data.limits.ONE_LINE;
    const TOP = data.limits.TOP;
    if (!d.entry) {
      return ["Not in the index: no message of \"Diagnose your error\" matches", `  ${d.message.slice(0, 200)}`,
        `If your code raises nothing but does not learn, see Diagnose a symptom: ${data.pages.symptoms}`,
        `All messages: ${data.pages.errors}`];
    }
    const e = d.entry;
    const lines = [`Your error: ${oneLine(d.message, 160)}`, `In the index under "${e.group}": ${e.page}`];
    if (d.unknownCase) {
      lines.push(`Your case, ${d.unknownCase}, is none of the cases the index knows for this message.`,
        `What the message means: ${e.family.mechanism}`, "The known cases:");
      for (const r of d.others) lines.push(`  ${r.position}. ${oneLine(r.cause.cause, W)}`);
      return lines;
    }
    if (d.ranked.length) {
      lines.push("Most likely, from your traceback and code:");
      d.ranked.slice(0, TOP).forEach((r, k) => lines.push(...full(k + 1, r)));
      const rest = d.ranked.slice(TOP).concat(d.others).sort((a, b) => a.position - b.position);
      if (rest.length) {
        lines.push(`Other causes (${rest.length}):`);
        for (const r of rest) lines.push(`  ${r.position}. ${oneLine(r.cause.cause, W)}`);
      }
      return lines;
    }
    if (d.others.length <= TOP) {
      lines.push(d.others.length === 1 ? "Its cause:" : "Its causes (nothing in the traceback or the code tells them apart):");
      for (const r of d.others) lines.push(...full(r.position, r));
      return lines;
    }
    lines.push(`Nothing in the traceback or the code points to one of its ${d.others.length} causes; each, ` +
      "in the index's order, with its fix (give the doctor your code to rank them):");
    for (const r of d.others) {
      lines.push(`  ${r.position}. ${oneLine(r.cause.cause, W)}`,
        `     fix: ${oneLine(r.cause.fix, W)} [${r.cause.shown_in[0].label}]`);
    }
    return lines;
  }

  function answer(text, code, codeLabel, data) {
    const found = diagnose(text, code, codeLabel, data);
    return { found: found[0].entry !== null, text: found.map((d) => textLines(d, data).join("\n")).join("\n\n"), diagnoses: found };
  }

  // --- the page ----------------------------------------------------------------------------------
  function element(tag, attributes, ...children) {
    const node = document.createElement(tag);
    Object.entries(attributes || {}).forEach(([k, v]) => node.setAttribute(k, v));
    children.forEach((child) => node.append(child));
    return node;
  }

  // Inline `code` of an answer's text as <code>, and its URLs as links.
  function inline(text) {
    const span = element("span");
    text.split(/(`[^`]*`)/).forEach((part) => {
      if (part.length > 1 && part.startsWith("`") && part.endsWith("`")) span.append(element("code", {}, part.slice(1, -1)));
      else {
        part.split(/(https?:\/\/[^\s)]+)/).forEach((bit, k) => span.append(k % 2 ? element("a", { href: bit }, bit) : bit));
      }
    });
    return span;
  }

  const place = (p) => element("a", { href: p.address }, p.label);

  function causeItem(r, withEvidence) {
    const c = r.cause;
    const item = element("li", withEvidence ? {} : { value: String(r.position) }, inline(c.cause));
    if (withEvidence) for (const line of r.because) item.append(element("br"), element("i", {}, "because "), inline(line));
    item.append(element("br"), element("i", {}, "fix: "), inline(c.fix), element("br"), element("i", {}, "shown in: "));
    c.shown_in.forEach((p, k) => item.append(...(k ? [", ", place(p)] : [place(p)])));
    if (withEvidence) item.append(element("br"), element("i", {}, "reports: "), inline(c.reports));
    return item;
  }

  // The answer laid out as the notebook extension lays it out: the ranked causes open, the others
  // folded. Its words are textLines' (the same data), which the tests compare with the command's.
  function show(result, data, out) {
    out.replaceChildren();
    for (const d of result.diagnoses) {
      const lines = textLines(d, data);
      if (!d.entry) {
        out.append(element("p", {}, lines[0]), element("pre", {}, d.message.slice(0, 200)),
          element("p", {}, "No error, but it does not learn? ", element("a", { href: data.pages.symptoms }, "Diagnose a symptom"),
            ". All messages: ", element("a", { href: data.pages.errors }, "Diagnose your error"), "."));
        continue;
      }
      out.append(element("p", {}, "Your error: ", element("code", {}, lines[0].replace(/^Your error: /, ""))),
        element("p", {}, "In the index under ", element("a", { href: d.entry.page }, d.entry.group)));
      if (d.unknownCase) {
        out.append(element("p", {}, inline(lines[2])), element("p", {}, inline(lines[3])), element("p", {}, "The known cases:"),
          element("ol", {}, ...d.others.map((r) => causeItem(r, false))));
        continue;
      }
      let rest = d.others;
      if (d.ranked.length) {
        out.append(element("p", { class: "doctor-head" }, "Most likely, from your traceback and code:"),
          element("ol", {}, ...d.ranked.slice(0, data.limits.TOP).map((r) => causeItem(r, true))));
        rest = d.ranked.slice(data.limits.TOP).concat(d.others).sort((a, b) => a.position - b.position);
      } else {
        out.append(element("p", { class: "doctor-head" }, inline(lines[2])));
      }
      if (rest.length) {
        const folded = element("details", d.ranked.length || rest.length > data.limits.TOP ? {} : { open: "" },
          element("summary", {}, d.ranked.length ? `Other causes (${rest.length})` : `Its ${rest.length} causes`),
          element("ol", {}, ...rest.map((r) => causeItem(r, false))));
        out.append(folded);
      }
    }
  }

  function mount(container, data) {
    const traceback = element("textarea", { rows: "10", id: "doctor-traceback", "aria-label": "traceback",
      placeholder: "Paste the traceback or the error message here" });
    const code = element("textarea", { rows: "6", id: "doctor-code", "aria-label": "code",
      placeholder: "Optional: the code of the cell or script that failed (it ranks the causes)" });
    const button = element("button", { type: "button", class: "btn btn-primary" }, "Diagnose");
    const out = element("div", { id: "doctor-answer", role: "status" });
    button.addEventListener("click", () => show(answer(traceback.value, code.value, "your code", data), data, out));
    container.append(element("label", { for: "doctor-traceback" }, "Traceback or message"), traceback,
      element("label", { for: "doctor-code" }, "Your code (optional)"), code, button, out);
  }

  if (typeof document !== "undefined") {
    const here = document.currentScript && document.currentScript.src;
    document.addEventListener("DOMContentLoaded", () => {
      const container = document.getElementById("autograd-doctor");
      if (!container) return;
      const index = element("script", { src: here.replace(/doctor\.js(\?.*)?$/, "doctor_index.js") });
      index.addEventListener("load", () => mount(container, root.AUTOGRAD_DOCTOR_INDEX));
      document.head.append(index);
    });
  }
  if (typeof module !== "undefined") module.exports = { answer, diagnose, read, textLines };
})(typeof window !== "undefined" ? window : globalThis);
