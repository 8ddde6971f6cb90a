;;; harness.el --- the Emacs editor tests' reporting and waiting -*- lexical-binding: t; -*-
;; Loaded by run.sh before each test (test.el, trust.el, peft.el, llmcompressor.el): TAP-like
;; lines, an event loop that waits for a condition, visiting a file as a user would, and an exit
;; code that is the verdict.

(require 'cl-lib)
(defvar opscope-test-failures 0)
(defvar opscope-test-passed 0)

(defun opscope-test-report (ok what &optional detail)
  (princ (format "%s - %s%s\n" (if ok "ok" "not ok") what
                 (if (and (not ok) detail) (format ": %s" detail) "")))
  (if ok (cl-incf opscope-test-passed) (cl-incf opscope-test-failures)))

(defun opscope-test-finish ()
  "Print the tally and exit with it.
The servers are shut down first: a request one sends while Emacs exits (the
client/registerCapability of a server connected last) was answered on a closing pipe,
an error batch Emacs turned into a failed run after every check had passed."
  (princ (format "%d passed, %d failed\n" opscope-test-passed opscope-test-failures))
  (when (fboundp 'eglot-shutdown-all)
    (ignore-errors (eglot-shutdown-all)))
  (kill-emacs (if (zerop opscope-test-failures) 0 1)))

(defun opscope-test-wait (pred seconds)
  "Run the event loop until PRED is non-nil or SECONDS pass; return PRED's value."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    value))

(defun opscope-test-open (file)
  "Visit FILE as a user would; the opscope server managing it, if any, within 15 s."
  (find-file file)
  ;; eglot-ensure connects after the next command; batch mode runs no command loop.
  (run-hooks 'post-command-hook)
  (opscope-test-wait (lambda () (let ((s (eglot-current-server)))
                                  (and s (eq (eieio-object-class-name s) 'eglot-opscope) s)))
                     15))

;;; harness.el ends here
