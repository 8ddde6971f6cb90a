;;; llmcompressor.el --- Emacs batch (eglot): a compressed-tensors checkpoint -*- lexical-binding: t; -*-
;; Issue 27: a tiny Gemma 3 checkpoint's config.json in a folder without opscope.yaml is its own
;; model; its quantization_config ignores the head as `language_model.lm_head' (transformers
;; 4.5x's name, `lm_head' in transformers 5): flymake shows a warning offering lm_head, the quick
;; fix writes it and the warning goes.  The recipe YAML beside it gets opscope too.
;; Run by `run.sh llmcompressor'; the exit code is the verdict.

(require 'cl-lib)
(require 'subr-x)

(defun opscope-test-no-match (line)
  "The flymake diagnostic on LINE whose text says it matches no module."
  (flymake-start)
  (cl-find-if (lambda (d)
                (and (= (line-number-at-pos (flymake-diagnostic-beg d)) line)
                     (string-match-p "matches no module" (flymake-diagnostic-text d))))
              (flymake-diagnostics)))

(let* ((ws (or (getenv "OPSCOPE_WS") (error "OPSCOPE_WS: the prepared llm-compressor workspace")))
       (bin (or (getenv "OPSCOPE_BIN") (error "OPSCOPE_BIN: the built opscope")))
       (repo (or (getenv "OPSCOPE_REPO") (error "OPSCOPE_REPO: the source tree")))
       ;; The tiny Gemma 3's export takes 10-20 s on a loaded 2-core machine.
       (load-timeout (string-to-number (or (getenv "OPSCOPE_LOAD_TIMEOUT_S") "120"))))
  (condition-case err
      (progn
        (require 'eglot)
        (princ (format "# Emacs %s\n" emacs-version))
        (unless (fboundp 'yaml-mode)
          (define-derived-mode yaml-mode text-mode "YAML"))
        (unless (fboundp 'json-mode) ; json-mode from MELPA, as a user serving JSON has it
          (define-derived-mode json-mode js-mode "JSON"))
        (add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . yaml-mode))
        (add-to-list 'auto-mode-alist '("\\.json\\'" . json-mode))
        (add-to-list 'load-path (expand-file-name "editors/emacs" repo))
        (require 'opscope)
        (setq opscope-program bin)
        (opscope-eglot-setup)

        (let ((checkpoint (expand-file-name "gemma3-w4a16/config.json" ws)))
          (unless (opscope-test-open checkpoint)
            (opscope-test-report nil "eglot connects to opscope for the checkpoint config.json"
                                 (format "%s in %s" (eglot-current-server) major-mode))
            (opscope-test-finish))
          (opscope-test-report t "eglot connects to opscope for the checkpoint config.json")
          (opscope-test-report (file-equal-p (project-root (eglot--project (eglot-current-server)))
                                             (file-name-directory checkpoint))
                               "its project is the checkpoint's folder (no opscope.yaml above)"
                               (project-root (eglot--project (eglot-current-server)))))

        ;; The server exports the checkpoint's own architecture: flymake shows the warning.
        (let* ((entry-line (save-excursion (goto-char (point-min))
                                           (search-forward "\"language_model.lm_head\"")
                                           (line-number-at-pos)))
               (diag (opscope-test-wait (lambda () (opscope-test-no-match entry-line)) load-timeout)))
          (opscope-test-report (and diag (eq (flymake-diagnostic-type diag) 'eglot-warning)
                                    (string-match-p "did you mean `lm_head'?"
                                                    (flymake-diagnostic-text diag)))
                               "flymake warns that language_model.lm_head matches nothing, offering lm_head"
                               (mapcar (lambda (d) (list (flymake-diagnostic-type d)
                                                         (flymake-diagnostic-text d)))
                                       (flymake-diagnostics)))
          (when diag
            (princ (format "# config.json:%d: %s\n" entry-line (flymake-diagnostic-text diag)))
            ;; The quick fix, as M-x eglot-code-actions at the warning lists and applies it.
            (let* ((actions (eglot-code-actions (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag)))
                   (fix (cl-find "Replace with `lm_head`" actions
                                 :key (lambda (a) (plist-get a :title)) :test #'equal)))
              (opscope-test-report fix "a quick fix offers lm_head"
                                   (mapcar (lambda (a) (plist-get a :title)) actions))
              (when fix
                (eglot--apply-workspace-edit (plist-get fix :edit))
                ;; What eglot sends once Emacs is idle (idle timers never run in batch).
                (eglot--signal-textDocument/didChange)
                (opscope-test-report (save-excursion (goto-char (point-min))
                                                     (search-forward "\"lm_head\"" nil t))
                                     "the quick fix writes \"lm_head\"")
                (opscope-test-report (opscope-test-wait
                                      (lambda () (and (progn (flymake-start) t)
                                                      (not (opscope-test-no-match entry-line))))
                                      30)
                                     "after the fix the warning is gone"
                                     (mapcar #'flymake-diagnostic-text (flymake-diagnostics)))))))

        ;; A recipe beside it is a config too.
        (opscope-test-report (opscope-test-open (expand-file-name "recipe.yaml" ws))
                             "eglot connects to opscope for recipe.yaml (a GPTQModifier recipe)"
                             major-mode)
        (opscope-test-finish))
    (error (opscope-test-report nil "the test ran" (error-message-string err))
           (opscope-test-finish))))
