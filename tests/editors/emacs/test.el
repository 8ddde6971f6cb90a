;;; test.el --- Emacs batch end-to-end test of editors/emacs with eglot -*- lexical-binding: t; -*-
;; Completion and diagnostics from the real `opscope lsp' in the example's config.
;; Run by run.sh; the exit code is the verdict.

(require 'json)
(require 'subr-x)
(defvar opscope-test-failures 0)
(defvar opscope-test-passed 0)

(defun opscope-test-report (ok what &optional detail)
  (princ (format "%s - %s%s\n" (if ok "ok" "not ok") what
                 (if (and (not ok) detail) (format ": %s" detail) "")))
  (if ok (cl-incf opscope-test-passed) (cl-incf opscope-test-failures)))

(defun opscope-test-finish ()
  (princ (format "%d passed, %d failed\n" opscope-test-passed opscope-test-failures))
  (kill-emacs (if (zerop opscope-test-failures) 0 1)))

(defun opscope-test-wait (pred seconds)
  "Run the event loop until PRED is non-nil or SECONDS pass; return PRED's value."
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    value))

(let* ((ws (or (getenv "OPSCOPE_WS") (error "OPSCOPE_WS: the prepared example workspace")))
       (bin (or (getenv "OPSCOPE_BIN") (error "OPSCOPE_BIN: the built opscope")))
       (repo (or (getenv "OPSCOPE_REPO") (error "OPSCOPE_REPO: the source tree")))
       (load-timeout (string-to-number (or (getenv "OPSCOPE_LOAD_TIMEOUT_S") "240")))
       (ex (let ((json-object-type 'alist) (json-key-type 'symbol))
             (json-read-file (expand-file-name "tests/editors/example.json" repo))))
       (config (alist-get 'config ex))
       (expect (alist-get 'expect (alist-get 'completion ex)))
       (bad (alist-get 'badPattern ex)))
  (condition-case err
      (progn
        (require 'eglot)
        (princ (format "# Emacs %s\n" emacs-version))
        ;; Emacs 28 has no YAML mode of its own: a minimal one gives eglot a major mode.
        (unless (fboundp 'yaml-mode)
          (define-derived-mode yaml-mode text-mode "YAML"))
        (add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . yaml-mode))
        (add-to-list 'load-path (expand-file-name "editors/emacs" repo))
        (require 'opscope)
        (setq opscope-program bin)
        ;; run.sh named the model's Python (torch) in the project's opscope.yaml and trusted it.
        (opscope-eglot-setup)
        (find-file (expand-file-name (alist-get 'file config) ws))
        ;; eglot-ensure connects after the next command; batch mode runs no command loop.
        (run-hooks 'post-command-hook)
        (opscope-test-report (opscope-test-wait (lambda () (eglot-current-server)) 15)
                             "eglot connects to opscope for the config")
        (unless (opscope-test-wait
                 (lambda () (member (plist-get opscope-status :state) '("ready" "failed")))
                 load-timeout)
          (opscope-test-report nil "the model loads" opscope-status)
          (opscope-test-finish))
        (unless (equal (plist-get opscope-status :state) "ready")
          (opscope-test-report nil "the model loads" opscope-status)
          (opscope-test-finish))
        (princ (format "# model ready: %s\n" (opscope-status-string)))

        ;; Diagnostics reach flymake: the bad pattern's line has a no-match warning.
        (let* ((bad-line (save-excursion
                           (goto-char (point-min))
                           ;; The first occurrence outside a comment.
                           (while (progn (search-forward bad)
                                         (save-excursion (beginning-of-line) (looking-at-p "[ \t]*#"))))
                           (line-number-at-pos)))
               (diag (opscope-test-wait
                      (lambda ()
                        (flymake-start)
                        (cl-find-if (lambda (d)
                                      (and (= (line-number-at-pos (flymake-diagnostic-beg d)) bad-line)
                                           (string-match-p "match" (flymake-diagnostic-text d))))
                                    (flymake-diagnostics)))
                      30)))
          (opscope-test-report diag (format "flymake shows the no-match warning on %s" bad)
                               (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))

        ;; Completion at a new key under module_name_configs, through eglot's capf.
        (goto-char (point-min))
        (search-forward "module_name_configs:")
        (end-of-line)
        (insert "\n" (alist-get 'keyIndent config) (alist-get 'prefix (alist-get 'completion ex)))
        (let* ((capf (eglot-completion-at-point))
               (table (nth 2 capf))
               (prefix (buffer-substring-no-properties (nth 0 capf) (nth 1 capf)))
               (candidates (opscope-test-wait
                            (lambda () (let ((all (all-completions "" table)))
                                         (and all (not (equal prefix "\0")) all)))
                            15)))
          ;; eglot shows the text it would insert: the name as a regex (`layer1\.0\.conv1').
          (opscope-test-report
           (cl-some (lambda (c) (or (string-match-p (regexp-quote expect) c)
                                    (string-match-p (regexp-quote (regexp-quote expect)) c)))
                    candidates)
           (format "completion offers %s" expect)
           (string-join (seq-take candidates 20) ", ")))
        (opscope-test-finish))
    (error (opscope-test-report nil "the test ran" (error-message-string err))
           (opscope-test-finish))))
