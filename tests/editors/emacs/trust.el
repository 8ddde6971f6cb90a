;;; trust.el --- Emacs batch: a hostile repository runs nothing when a config opens -*- lexical-binding: t; -*-
;; The server asks (window/showMessageRequest), the user declines, flymake shows the
;; untrusted-project diagnostic and no marker file of tests/hostile_repo.py appears.
;; Run by `run.sh trust'; the exit code is the verdict.

(require 'cl-lib)
(defvar opscope-test-questions nil "Messages of the server's window/showMessageRequest.")

(let* ((ws (or (getenv "OPSCOPE_WS") (error "OPSCOPE_WS: the prepared hostile repository")))
       (bin (or (getenv "OPSCOPE_BIN") (error "OPSCOPE_BIN: the built opscope")))
       (repo (or (getenv "OPSCOPE_REPO") (error "OPSCOPE_REPO: the source tree")))
       (markers '("pwned-by-python-setting" "pwned-by-venv" "pwned-by-import")))
  (condition-case err
      (progn
        (require 'eglot)
        (unless (fboundp 'yaml-mode)
          (define-derived-mode yaml-mode text-mode "YAML"))
        (add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . yaml-mode))
        (add-to-list 'load-path (expand-file-name "editors/emacs" repo))
        (require 'opscope)
        (setq opscope-program bin)
        (opscope-eglot-setup)
        ;; The user declines. eglot's own handler would read the answer from the minibuffer,
        ;; which batch mode cannot.
        (cl-defmethod eglot-handle-request
          ((_server eglot-opscope) (_method (eql window/showMessageRequest))
           &key message &allow-other-keys)
          (push message opscope-test-questions)
          nil) ; null: dismissed (Emacs 28's jsonrpc writes nil as null)
        (find-file (expand-file-name "configs/quant.yaml" ws))
        (run-hooks 'post-command-hook)
        (opscope-test-report (opscope-test-wait (lambda () (eglot-current-server)) 15)
                             "eglot connects to opscope for the config")
        (let ((diag (opscope-test-wait
                     (lambda ()
                       (flymake-start)
                       (cl-find-if (lambda (d)
                                     (string-match-p
                                      (regexp-quote "opscope.yaml names a Python model (model.py:build) that opscope would run with tools/evil.sh")
                                      (flymake-diagnostic-text d)))
                                   (flymake-diagnostics)))
                     30)))
          (opscope-test-report (and diag (= (line-number-at-pos (flymake-diagnostic-beg diag)) 1))
                               "flymake shows the untrusted-project diagnostic on the first line"
                               (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
        (opscope-test-report (and (= (length opscope-test-questions) 1)
                                  (string-match-p "Trust this project\\?" (car opscope-test-questions)))
                             "the server asks once whether to trust the project"
                             opscope-test-questions)
        ;; Time for the server to have exported, had it been going to.
        (opscope-test-wait (lambda () nil) 3)
        (let ((ran (cl-remove-if-not (lambda (m) (file-exists-p (expand-file-name m ws))) markers)))
          (opscope-test-report (null ran) "nothing the repository names ran" ran))
        (opscope-test-report (not (member (plist-get opscope-status :state) '("loading" "ready")))
                             "no model was loaded" opscope-status)
        (opscope-test-finish))
    (error (opscope-test-report nil "the test ran" (error-message-string err))
           (opscope-test-finish))))
