"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe.

Chromium reads commands from fd 3 and writes replies and events to fd 4, each
message JSON terminated by a NUL byte, so no websocket (and no third-party
package) is needed. Used by run_html_test.py to click table headers and take
dark-mode screenshots; python3 standard library only.
"""
import base64
import json
import os
import select
import subprocess
import time


class DevToolsError(RuntimeError):
    pass


class Chromium:
    """One headless Chromium with a private profile, driven through a pipe."""

    def __init__(self, exe, profile_dir, window_size=(1280, 900)):
        self._window_size = window_size
        self._dark = False
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire_fds():  # in the child: the pipe ends become fds 3 and 4
            # Via fresh copies: a pipe end may already sit on fd 3 or 4, where
            # dup2 would do nothing and leave it close-on-exec.
            read_end, write_end = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self._proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={profile_dir}",
             f"--window-size={window_size[0]},{window_size[1]}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=wire_fds)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self._session = None
        self._events = []  # events read while waiting for a reply, kept for wait_for

    def close(self):
        try:
            self.send("Browser.close", browser_level=True, timeout=10)
        except Exception:  # noqa: BLE001 - the browser may be gone already
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DevToolsError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise DevToolsError("Chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, browser_level=False, timeout=60):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if self._session and not browser_level:
            message["sessionId"] = self._session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:  # other replies are skipped, events kept
            reply = self._read_message(deadline)
            if "method" in reply and "id" not in reply:
                self._events.append(reply)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise DevToolsError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def open(self, url):
        """Opens `url` in a new tab and waits until sort.js has run."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, browser_level=True)["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                  browser_level=True)["sessionId"]
        self.send("Page.enable")
        # Emulation belongs to the tab: set it again for each one.
        width, height = self._window_size
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self._emulate_color_scheme()
        self._events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete' && document.documentElement.dataset.ready === '1'")

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise DevToolsError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, condition, timeout=120):
        """Until `condition` holds in the tab once a page has loaded: checked
        now and after each load event of the tab (not by the clock: a
        loaded machine takes its time). A load event read before a check
        that came out false (about:blank's, or one that came first) costs
        another check, never a wait; the bound only matters when the page
        never loads."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"!!({condition})"):
            self._next_event("Page.loadEventFired", deadline, f"page never satisfied: {condition}")

    def _next_event(self, method, deadline, what):
        """Takes the next event `method` of this tab: one kept, or the next read."""
        while True:
            for i, event in enumerate(self._events):
                if event["method"] == method and event.get("sessionId") == self._session:
                    del self._events[i]
                    return event
            self._events.clear()  # none of them is waited for
            try:
                message = self._read_message(deadline)
            except DevToolsError as e:
                raise DevToolsError(f"{what} ({e})") from None
            if "method" in message and "id" not in message:
                self._events.append(message)

    def prefer_dark(self, dark):
        """Emulates the reader's system theme, for this tab and the next ones."""
        self._dark = dark
        if self._session:
            self._emulate_color_scheme()

    def _emulate_color_scheme(self):
        features = [{"name": "prefers-color-scheme", "value": "dark" if self._dark else "light"}]
        self.send("Emulation.setEmulatedMedia", {"features": features})

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
