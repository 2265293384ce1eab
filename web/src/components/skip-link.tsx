/**
 * "Skip to content": the first stop of the Tab order on every screen, shown when focused.
 * It moves the focus to the screen's <main> (else its first heading), so a keyboard user
 * passes the banner and the navigation in one key press.
 */
export function SkipLink() {
  return (
    <a
      href="#main-content"
      className="skip-link"
      onClick={(event) => {
        event.preventDefault();
        const target = document.querySelector<HTMLElement>('main') ?? document.querySelector<HTMLElement>('h1');
        if (!target) return;
        if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
        target.focus();
      }}
    >
      Skip to content
    </a>
  );
}
