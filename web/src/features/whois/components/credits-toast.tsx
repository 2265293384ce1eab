import { Link } from 'wouter';
import { CREDITS_TOAST_MS, WHOIS_MESSAGES } from '@common/whois-rules';
import { toast } from '@/lib/toast-store';

/** Too few credits, with the way to buy more, for 3.3 seconds. */
export function showCreditsToast(): void {
  toast.error(
    <span className="whois-credits-toast" data-testid="whois-credits-toast">
      <span>{WHOIS_MESSAGES.creditsRequired}</span>{' '}
      <Link href="/subscriptions/whois-credits" className="link">
        Buy WHOIS credits
      </Link>
    </span>,
    CREDITS_TOAST_MS,
  );
}
