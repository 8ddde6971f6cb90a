;;; test.el --- Emacs batch end-to-end test of editors/emacs with eglot -*- lexical-binding: t; -*-
;; Completion and diagnostics from the real `opscope lsp' in the example's config; then a training
;; script whose config is written in Python (issue 12), served with `opscope-eglot-python':
;; diagnostics, hover, completion inside the config's strings, nothing (and no error) outside
;; them, and no opscope in a Python file without a config.
;; Run by run.sh; the exit code is the verdict.

(require 'json)
(require 'subr-x)

;; What a user's Python buffer shows of the server: a request at point, or the error.
(defun opscope-test-request (method)
  (condition-case err
      (list :result
            (jsonrpc-request (eglot-current-server) method
                             (list :textDocument (list :uri (opscope--file-uri buffer-file-name))
                                   :position (list :line (1- (line-number-at-pos))
                                                   :character (- (point) (line-beginning-position))))))
    (error (list :error (error-message-string err)))))

(defun opscope-test-hover-text (result)
  (let ((contents (and result (plist-get result :contents))))
    (cond ((stringp contents) contents)
          ((plist-get contents :value))
          (t (format "%s" (or contents ""))))))

(defun opscope-test-candidates (wait-seconds)
  "The completion candidates eglot offers at point (waiting up to WAIT-SECONDS for some)."
  (let* ((capf (eglot-completion-at-point))
         (table (nth 2 capf)))
    (and table
         (opscope-test-wait (lambda () (all-completions "" table)) wait-seconds))))

(defun opscope-test-name (candidate)
  "CANDIDATE as a name: eglot may show the text it would insert (quoted, regex-escaped)."
  (replace-regexp-in-string "[\\\"]" "" candidate))

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
        ;; Python training scripts too (eglot: opscope is their only server then).
        (setq opscope-eglot-python t)
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

        ;; A training script with its config in Python (issue 12).
        (let* ((py (alist-get 'python ex))
               (py-file (alist-get 'file py))
               (hover (alist-get 'hover py)))
          (find-file (expand-file-name py-file ws))
          (run-hooks 'post-command-hook)
          (let ((server (opscope-test-wait (lambda () (eglot-current-server)) 15)))
            (opscope-test-report (and server (eq (eieio-object-class-name server) 'eglot-opscope))
                                 (format "eglot connects to opscope for the Python config %s" py-file)
                                 (format "%s in %s" server major-mode)))
          (when (eglot-current-server)
            (let* ((bad (alist-get 'badPattern py))
                   (bad-line (save-excursion
                               (goto-char (point-min))
                               (search-forward (format "\"%s\"" bad))
                               (line-number-at-pos)))
                   (diag (opscope-test-wait
                          (lambda ()
                            (flymake-start)
                            (cl-find-if (lambda (d)
                                          (and (= (line-number-at-pos (flymake-diagnostic-beg d)) bad-line)
                                               (string-match-p "matches no module" (flymake-diagnostic-text d))))
                                        (flymake-diagnostics)))
                          60)))
              (opscope-test-report diag (format "flymake shows the no-match warning on %s in %s" bad py-file)
                                   (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))

            (goto-char (point-min))
            (search-forward (alist-get 'pattern hover))
            (backward-char 2)
            (let* ((answer (opscope-test-request :textDocument/hover))
                   (text (opscope-test-hover-text (plist-get answer :result))))
              (opscope-test-report
               (and (not (plist-get answer :error)) (> (length text) 0)
                    (cl-every (lambda (re) (let ((case-fold-search nil))
                                             ;; example.json's regexes use \d (JavaScript).
                                             (string-match-p (replace-regexp-in-string "\\\\d" "[0-9]" re) text)))
                              (alist-get 'expect_re hover)))
               (format "hover on %s in %s shows its matched ops" (alist-get 'pattern hover) py-file)
               (or (plist-get answer :error) text)))

            ;; Outside the config's strings: nothing, and no error (your Python server's place).
            (let ((outside (alist-get 'outside py)))
              (goto-char (point-min))
              (search-forward (alist-get 'line outside))
              (beginning-of-line)
              (search-forward (alist-get 'cursorAfter outside))
              (let ((hover-answer (opscope-test-request :textDocument/hover))
                    (definition (opscope-test-request :textDocument/definition))
                    (completion (opscope-test-request :textDocument/completion)))
                (opscope-test-report
                 (and (null (plist-get hover-answer :result)) (not (plist-get hover-answer :error))
                      (seq-empty-p (plist-get definition :result)) (not (plist-get definition :error))
                      (not (plist-get completion :error))
                      (seq-empty-p (plist-get (plist-get completion :result) :items)))
                 (format "outside config strings (`%s') no hover, definition or completion, and no error"
                         (alist-get 'line outside))
                 (list hover-answer definition completion))))

            ;; Typing new config calls at the end of the script.
            (seq-doseq (item (alist-get 'completions py))
              (goto-char (point-max))
              (unless (bolp) (insert "\n"))
              (insert (alist-get 'line item))
              (beginning-of-line)
              (search-forward (alist-get 'cursorAfter item))
              (let* ((candidates (opscope-test-candidates 15))
                     (names (mapcar #'opscope-test-name candidates)))
                (opscope-test-report
                 (and (cl-some (lambda (n) (string-match-p (regexp-quote (alist-get 'expect item)) n)) names)
                      (not (member (alist-get 'absent item) names)))
                 (format "completion of %s offers %s, not %s"
                         (alist-get 'what item) (alist-get 'expect item) (alist-get 'absent item))
                 (string-join (seq-take candidates 20) ", ")))
              (end-of-line)))

          ;; A Python file of the project without a config: not opscope's (your Python server's).
          (find-file (expand-file-name (alist-get 'plain py) ws))
          (run-hooks 'post-command-hook)
          (accept-process-output nil 1)
          (opscope-test-report (and (derived-mode-p 'python-mode) (null (eglot-current-server)))
                               (format "no opscope for %s, a Python file without a config" (alist-get 'plain py))
                               (format "%s in %s" (eglot-current-server) major-mode)))
        (opscope-test-finish))
    (error (opscope-test-report nil "the test ran" (error-message-string err))
           (opscope-test-finish))))
