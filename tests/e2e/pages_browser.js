// The pages test's hands: puppeteer-core driving Debian's chromium (never a
// downloaded browser) through the forms that --dump-dom cannot fill. One
// browser runs a list of jobs, since starting chromium costs seconds.
//
//   node pages_browser.js NPM_DIR JOBS.json
//
// NPM_DIR is where dev.sh installs the npm test tools (puppeteer-core in
// NPM_DIR/node_modules). JOBS.json holds {"chromium": PATH, "profile": DIR,
// "jobs": [JOB...]}, each JOB:
//   url         the page holding the form
//   form        the form's id
//   files       {input name: path} file inputs to fill (uploadFile)
//   fields      {input name: text} other inputs to fill
//   html        where to write the page the form's answer shows
//   screenshot  where to save a full-page PNG of it (optional)
//   viewport    {width, height} (default 1280x1800)
// Standard output is one JSON array, per job: {status, headers, url} of the
// navigation the form's submission caused, or {error} when it failed.
"use strict";

const fs = require("fs");
const path = require("path");

async function runJob(browser, job) {
  const page = await browser.newPage();
  try {
    const viewport = job.viewport || { width: 1280, height: 1800 };
    await page.setViewport(viewport);
    const opened = await page.goto(job.url, { waitUntil: "load", timeout: 30000 });
    if (!opened || !opened.ok()) {
      return { error: `GET ${job.url}: ${opened ? opened.status() : "no answer"}` };
    }
    const form = await page.$(`form#${job.form}`);
    if (!form) {
      return { error: `${job.url} has no form#${job.form}` };
    }
    for (const [name, file] of Object.entries(job.files || {})) {
      const input = await form.$(`input[type=file][name="${name}"]`);
      if (!input) {
        return { error: `form#${job.form} has no file input ${name}` };
      }
      await input.uploadFile(file);
    }
    for (const [name, value] of Object.entries(job.fields || {})) {
      const input = await form.$(`[name="${name}"]`);
      if (!input) {
        return { error: `form#${job.form} has no input ${name}` };
      }
      // Set rather than typed: a value with characters a keyboard lacks
      // arrives the same, and nothing the page's script does per key matters.
      await input.evaluate((element, text) => {
        element.value = text;
      }, value);
    }
    // form.submit() skips the browser's own validation, so that a missing
    // token reaches the server, which must refuse it itself.
    const [answer] = await Promise.all([
      page.waitForNavigation({ waitUntil: "load", timeout: 60000 }),
      form.evaluate((element) => element.submit()),
    ]);
    fs.writeFileSync(job.html, await page.content());
    if (job.screenshot) {
      await page.screenshot({ path: job.screenshot, fullPage: true });
    }
    return {
      status: answer ? answer.status() : 0,
      headers: answer ? answer.headers() : {},
      url: page.url(),
    };
  } catch (error) {
    return { error: String(error && error.stack ? error.stack : error) };
  } finally {
    await page.close();
  }
}

async function main() {
  const [npmDir, jobsFile] = process.argv.slice(2);
  if (!npmDir || !jobsFile) {
    console.error("usage: node pages_browser.js NPM_DIR JOBS.json");
    process.exit(2);
  }
  const puppeteer = require(path.join(path.resolve(npmDir), "node_modules", "puppeteer-core"));
  const spec = JSON.parse(fs.readFileSync(jobsFile, "utf8"));
  const browser = await puppeteer.launch({
    executablePath: spec.chromium,
    headless: true,
    userDataDir: spec.profile,
    // root in a container: no sandbox; no GPU on a test machine
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const results = [];
  try {
    for (const job of spec.jobs) {
      results.push(await runJob(browser, job));
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(results) + "\n");
}

main().catch((error) => {
  console.error(String(error && error.stack ? error.stack : error));
  process.exit(1);
});
