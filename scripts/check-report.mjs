// Loads a hashlab report in headless Chromium over the DevTools protocol (on a
// pipe: no port, no npm package) and fails on anything a reader would trip on:
// a console message of level error or warning, an uncaught exception, a request
// that leaves the file (the page must work offline), a chart without its title,
// description or marks, a mark whose value differs from its table cell, a
// table wider than its box or a row taller than four lines at 1000, 1400 or
// 1600 px.
// Writes a full-page screenshot for each colour scheme asked for.
//
//   node scripts/check-report.mjs REPORT.html|CHART.svg OUT_DIR [light|dark|print ...]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [page, outDir, ...schemesArg] = process.argv.slice(2);
if (!page || !outDir) {
  console.error("usage: node scripts/check-report.mjs REPORT.html OUT_DIR [light|dark|print ...]");
  process.exit(2);
}
const schemes = schemesArg.length ? schemesArg : ["light", "dark"];
mkdirSync(outDir, { recursive: true });
const browser = process.env.CHROMIUM || "chromium";
const profile = mkdtempSync(join(tmpdir(), "hashlab-check-report-"));

const chrome = spawn(
  browser,
  [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
    `--user-data-dir=${profile}`,
    "about:blank",
  ],
  { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
);
let chromeErr = "";
chrome.stderr.on("data", (d) => (chromeErr += d));

// The pipe protocol: JSON messages separated by NUL bytes, fd 3 to Chromium, fd 4 from it.
const toChrome = chrome.stdio[3];
const fromChrome = chrome.stdio[4];
let nextId = 1;
const pending = new Map();
const listeners = [];
let buffer = Buffer.alloc(0);
fromChrome.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  let end;
  while ((end = buffer.indexOf(0)) >= 0) {
    const message = JSON.parse(buffer.subarray(0, end).toString("utf8"));
    buffer = buffer.subarray(end + 1);
    if (message.id && pending.has(message.id)) {
      const { ok, fail } = pending.get(message.id);
      pending.delete(message.id);
      message.error ? fail(new Error(`${message.error.message} (${JSON.stringify(message.error)})`)) : ok(message.result);
    } else if (message.method) {
      for (const l of listeners) l(message);
    }
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  const message = { id, method, params };
  if (sessionId) message.sessionId = sessionId;
  toChrome.write(JSON.stringify(message) + "\0");
  return new Promise((ok, fail) => pending.set(id, { ok, fail }));
}
function waitFor(method, sessionId, timeoutMs = 30000) {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`timed out waiting for ${method}`)), timeoutMs);
    const l = (m) => {
      if (m.method === method && m.sessionId === sessionId) {
        clearTimeout(timer);
        listeners.splice(listeners.indexOf(l), 1);
        ok(m.params);
      }
    };
    listeners.push(l);
  });
}

// Runs in the page: what a reader would miss, as a list of problems, plus counts.
function inspect() {
  const problems = [];
  const charts = [...document.querySelectorAll("svg.chart")];
  // A page has tables with every charted number; a standalone SVG file has none.
  const hasTables = document.querySelector("table") !== null;
  for (const svg of charts) {
    const id = svg.id || "(no id)";
    const title = svg.querySelector(":scope > title");
    const desc = svg.querySelector(":scope > desc");
    if (!title || !title.textContent.trim()) problems.push(`chart ${id}: no <title>`);
    if (!desc || !desc.textContent.trim()) problems.push(`chart ${id}: no <desc>`);
    const box = svg.getBoundingClientRect();
    if (box.width < 100 || box.height < 50) problems.push(`chart ${id}: laid out at ${box.width}x${box.height}`);
    const marks = svg.querySelectorAll("[data-key]");
    if (marks.length === 0) problems.push(`chart ${id}: no marks`);
    for (const mark of marks) {
      if (!mark.querySelector(":scope > title")) problems.push(`chart ${id}: mark ${mark.dataset.key} has no <title>`);
      const r = mark.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) problems.push(`chart ${id}: mark ${mark.dataset.key} has no size`);
      if (!hasTables) continue;
      const cell = document.querySelector(`td[data-key="${CSS.escape(mark.dataset.key)}"]`);
      if (!cell) {
        problems.push(`chart ${id}: no table cell for ${mark.dataset.key}`);
      } else if (Number(cell.dataset.value) !== Number(mark.dataset.value)) {
        problems.push(`chart ${id}: ${mark.dataset.key} is ${mark.dataset.value} in the chart, ${cell.dataset.value} in the table`);
      }
    }
    // Text drawn outside the chart's own box is cut off.
    for (const t of svg.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)) {
        problems.push(`chart ${id}: text "${t.textContent}" is clipped`);
      }
    }
  }
  if (document.querySelectorAll("link[rel=stylesheet], script[src], img[src^=http], iframe").length) {
    problems.push("the page refers to outside resources");
  }
  return {
    problems,
    charts: charts.length,
    marks: document.querySelectorAll("svg.chart [data-key]").length,
    tables: document.querySelectorAll("table").length,
    height: Math.max(document.documentElement.scrollHeight || 0, Math.ceil(document.documentElement.getBoundingClientRect().height)),
  };
}

// Runs in the page at one window width: every table must fit the box it is
// in and every row must stay a few lines tall, or a reader sees one row in a
// tall box and scrolls sideways for the rest (how the security and
// availability tables once looked at 1400 px).
function layout(width, maxLines) {
  const problems = [];
  const viewport = document.documentElement.clientWidth;
  const tables = [...document.querySelectorAll("table")];
  for (const [i, table] of tables.entries()) {
    const name = `table "${(table.caption?.textContent ?? "").trim().slice(0, 60) || i + 1}"`;
    const wrap = table.closest(".table-wrap") ?? table.parentElement;
    const room = wrap.clientWidth;
    const wide = Math.ceil(Math.max(table.getBoundingClientRect().width, wrap.scrollWidth));
    if (wide > room + 1) problems.push(`${width} px: ${name} is ${wide} px wide in a box of ${room} px`);
    const box = wrap.getBoundingClientRect();
    if (box.left < -1 || box.right > viewport + 1) {
      problems.push(`${width} px: ${name}'s box spans ${Math.round(box.left)}-${Math.round(box.right)} px of a ${viewport} px window`);
    }
    for (const row of table.querySelectorAll("tbody tr")) {
      const cell = row.querySelector("td, th");
      if (!cell) continue;
      const style = getComputedStyle(cell);
      const line = parseFloat(style.lineHeight) || 1.2 * parseFloat(style.fontSize);
      const limit = maxLines * line + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) + 2;
      const tall = row.getBoundingClientRect().height;
      if (tall > limit) {
        problems.push(
          `${width} px: ${name}, row "${cell.textContent.trim().slice(0, 40)}" is ${Math.round(tall)} px tall (more than ${maxLines} lines of ${line} px)`,
        );
        break;
      }
    }
  }
  return { problems, tables: tables.length };
}
// Widths a report must read well at: a small laptop, a common one, a desktop.
const layoutWidths = [1000, 1400, 1600];
const maxRowLines = 4;

const failures = [];
try {
  await send("Target.setDiscoverTargets", { discover: true });
  for (const scheme of schemes) {
    const { targetId } = await send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
    listeners.push((m) => {
      if (m.sessionId !== sessionId) return;
      const p = m.params;
      if (m.method === "Runtime.consoleAPICalled" && ["error", "warning", "assert"].includes(p.type)) {
        failures.push(`${scheme}: console ${p.type}: ${p.args.map((a) => a.value ?? a.description).join(" ")}`);
      } else if (m.method === "Runtime.exceptionThrown") {
        failures.push(`${scheme}: exception: ${p.exceptionDetails.text} ${p.exceptionDetails.exception?.description ?? ""}`);
      } else if (m.method === "Log.entryAdded" && ["error", "warning"].includes(p.entry.level)) {
        failures.push(`${scheme}: ${p.entry.source} ${p.entry.level}: ${p.entry.text} ${p.entry.url ?? ""}`);
      } else if (m.method === "Network.requestWillBeSent" && !/^(file|data|about):/.test(p.request.url)) {
        failures.push(`${scheme}: the page requested ${p.request.url}`);
      }
    });
    await send("Runtime.enable", {}, sessionId);
    await send("Log.enable", {}, sessionId);
    await send("Network.enable", {}, sessionId);
    // Nothing may leave the machine: outside requests are blocked (and reported above).
    await send("Network.setBlockedURLs", { urls: ["http://*", "https://*", "ws://*", "wss://*"] }, sessionId);
    await send("Page.enable", {}, sessionId);
    await send("Emulation.setDeviceMetricsOverride", { width: 1240, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
    await send(
      "Emulation.setEmulatedMedia",
      {
        media: scheme === "print" ? "print" : "screen",
        features: [{ name: "prefers-color-scheme", value: scheme === "dark" ? "dark" : "light" }],
      },
      sessionId,
    );
    const loaded = waitFor("Page.loadEventFired", sessionId);
    await send("Page.navigate", { url: pathToFileURL(resolve(page)).href }, sessionId);
    await loaded;
    const { result, exceptionDetails } = await send(
      "Runtime.evaluate",
      { expression: `(${inspect.toString()})()`, returnByValue: true },
      sessionId,
    );
    if (exceptionDetails) throw new Error(`inspecting the page: ${exceptionDetails.text}`);
    const found = result.value;
    // A standalone SVG has no scrolling document element: use the chart's own height.
    if (!found.height) found.height = 900;
    if (found.charts === 0) failures.push(`${scheme}: no charts on the page`);
    for (const p of found.problems) failures.push(`${scheme}: ${p}`);
    if (found.tables > 0 && scheme !== "print") {
      for (const width of layoutWidths) {
        await send("Emulation.setDeviceMetricsOverride", { width, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
        const { result: fit, exceptionDetails: failed } = await send(
          "Runtime.evaluate",
          { expression: `(${layout.toString()})(${width}, ${maxRowLines})`, returnByValue: true },
          sessionId,
        );
        if (failed) throw new Error(`measuring the tables at ${width} px: ${failed.text}`);
        for (const p of fit.value.problems) failures.push(`${scheme}: ${p}`);
      }
      console.log(`${scheme}: ${found.tables} tables measured at ${layoutWidths.join(", ")} px (each within its box, rows at most ${maxRowLines} lines)`);
      await send("Emulation.setDeviceMetricsOverride", { width: 1240, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
    }
    const shot = await send(
      "Page.captureScreenshot",
      { format: "png", captureBeyondViewport: true, clip: { x: 0, y: 0, width: 1240, height: found.height, scale: 1 } },
      sessionId,
    );
    const name = basename(page).replace(/\.[^.]*$/, "");
    const file = join(outDir, `${name}-${scheme}.png`);
    writeFileSync(file, Buffer.from(shot.data, "base64"));
    console.log(`${scheme}: ${found.charts} charts, ${found.marks} marks checked against ${found.tables} tables; screenshot ${file} (1240x${found.height})`);
    if (process.env.CHECK_REPORT_FIGURES) {
      // One picture per figure and the top of the page, to look at closely.
      const { result: boxes } = await send(
        "Runtime.evaluate",
        {
          expression: `[...document.querySelectorAll("figure, .table-wrap, dl.facts")].map((f, i) => { const r = f.getBoundingClientRect(); const s = f.querySelector("svg"); return { id: s ? s.id : f.className.replace(/ .*/, "") + "-" + i, x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: Math.min(r.height, 1600) }; })`,
          returnByValue: true,
        },
        sessionId,
      );
      const parts = [{ id: "top", x: 0, y: 0, width: 1240, height: 900 }, ...boxes.value];
      for (const b of parts) {
        const picture = await send(
          "Page.captureScreenshot",
          { format: "png", captureBeyondViewport: true, clip: { x: b.x, y: b.y, width: b.width, height: b.height, scale: 1 } },
          sessionId,
        );
        writeFileSync(join(outDir, `${name}-${scheme}-${b.id}.png`), Buffer.from(picture.data, "base64"));
      }
    }
    await send("Target.closeTarget", { targetId });
  }
} catch (e) {
  failures.push(`${e.message}${chromeErr ? `\nchromium: ${chromeErr.trim().slice(-600)}` : ""}`);
} finally {
  // Let Chromium close its profile before it is removed.
  const exited = new Promise((ok) => chrome.once("exit", ok));
  send("Browser.close").catch(() => {});
  const timer = setTimeout(() => chrome.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
  rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
}
if (failures.length) {
  for (const f of failures) console.error(`check-report: ${f}`);
  process.exit(1);
}
