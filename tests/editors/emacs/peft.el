;;; peft.el --- Emacs batch (eglot): PEFT configs without opscope.yaml -*- lexical-binding: t; -*-
;; Issue 26: the training script's LoraConfig(target_modules=["q_proj", "v_projj"]) on a cached
;; tiny Llama shows v_projj as matching nothing with v_proj offered (flymake and the quick fix);
;; completion inside the list offers v_proj; the axolotl YAML beside it gets opscope too, a
;; Python file without PEFT does not.  Run by `run.sh peft'; the exit code is the verdict.

(require 'cl-lib)
(require 'subr-x)

(defun opscope-test-offers-v-proj (text)
  "Non-nil when TEXT names v_proj apart from the misspelt v_projj itself."
  (and text (string-match-p "v_proj" (replace-regexp-in-string "v_projj" "" text))))

(let* ((ws (or (getenv "OPSCOPE_WS") (error "OPSCOPE_WS: the prepared PEFT workspace")))
       (bin (or (getenv "OPSCOPE_BIN") (error "OPSCOPE_BIN: the built opscope")))
       (repo (or (getenv "OPSCOPE_REPO") (error "OPSCOPE_REPO: the source tree")))
       ;; The tiny Llama's export takes 10-20 s on a loaded 2-core machine.
       (load-timeout (string-to-number (or (getenv "OPSCOPE_LOAD_TIMEOUT_S") "120"))))
  (condition-case err
      (progn
        (require 'eglot)
        (princ (format "# Emacs %s\n" emacs-version))
        (unless (fboundp 'yaml-mode)
          (define-derived-mode yaml-mode text-mode "YAML"))
        (add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . yaml-mode))
        (add-to-list 'load-path (expand-file-name "editors/emacs" repo))
        (require 'opscope)
        (setq opscope-program bin)
        (setq opscope-eglot-python t)
        (opscope-eglot-setup)

        (unless (opscope-test-open (expand-file-name "train_lora.py" ws))
          (opscope-test-report nil "eglot connects to opscope for train_lora.py (imports peft)"
                               (format "%s in %s" (eglot-current-server) major-mode))
          (opscope-test-finish))
        (opscope-test-report t "eglot connects to opscope for train_lora.py (imports peft)")
        (opscope-test-report (file-equal-p (project-root (eglot--project (eglot-current-server))) ws)
                             "its project is the script's folder (no opscope.yaml above)"
                             (project-root (eglot--project (eglot-current-server))))

        ;; The server finds the model in the hub cache and exports it: flymake shows the warning.
        (let* ((list-line (save-excursion (goto-char (point-min))
                                          (search-forward "\"v_projj\"")
                                          (line-number-at-pos)))
               (diag (opscope-test-wait
                      (lambda ()
                        (flymake-start)
                        (cl-find-if (lambda (d)
                                      (and (= (line-number-at-pos (flymake-diagnostic-beg d)) list-line)
                                           (string-match-p "v_projj" (flymake-diagnostic-text d))))
                                    (flymake-diagnostics)))
                      load-timeout)))
          (opscope-test-report (and diag (opscope-test-offers-v-proj (flymake-diagnostic-text diag)))
                               "flymake shows v_projj matching nothing, naming v_proj"
                               (mapcar #'flymake-diagnostic-text (flymake-diagnostics)))
          (when diag
            ;; The quick fix, as M-x eglot-code-actions at the warning lists it.
            (let* ((actions (eglot-code-actions (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag)))
                   (titles (mapcar (lambda (a) (plist-get a :title)) actions)))
              (opscope-test-report (cl-some #'opscope-test-offers-v-proj titles)
                                   "a quick fix offers v_proj" titles))))

        ;; Completion inside the list, after `"v_' of the misspelt entry, through eglot's capf.
        (goto-char (point-min))
        (search-forward "\"v_")
        (let* ((table (nth 2 (eglot-completion-at-point)))
               (candidates (and table (opscope-test-wait (lambda () (all-completions "" table)) 15)))
               (names (mapcar (lambda (c) (replace-regexp-in-string "[\\\"]" "" c)) candidates)))
          (opscope-test-report (cl-some (lambda (n) (string-match-p "\\`v_proj\\_>" n)) names)
                               "completion inside target_modules offers v_proj"
                               (string-join (seq-take candidates 20) ", ")))

        ;; The other PEFT files are configs too; a Python file without PEFT is not.
        (opscope-test-report (opscope-test-open (expand-file-name "axolotl.yaml" ws))
                             "eglot connects to opscope for axolotl.yaml" major-mode)
        (let ((plain (expand-file-name "plain.py" ws)))
          (with-temp-file plain (insert "import torch\nmodel = torch.nn.Linear(2, 2)\n"))
          (find-file plain)
          (run-hooks 'post-command-hook)
          (accept-process-output nil 1)
          (opscope-test-report (and (derived-mode-p 'python-mode) (null (eglot-current-server)))
                               "no opscope for plain.py, a Python file without PEFT"
                               (format "%s in %s" (eglot-current-server) major-mode)))
        (opscope-test-finish))
    (error (opscope-test-report nil "the test ran" (error-message-string err))
           (opscope-test-finish))))
