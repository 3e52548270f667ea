<?php
/**
 * Test-only (test/support/mediawiki.ts loads it into the extension wiki): list=consiliumtokenecho echoes its
 * `text` back. MediaWiki refuses it by GET (mustbeposted) and without a valid CSRF token (badtoken), as the
 * modules of CheckUser and the like do, so the wiki client's POST and token handling meet a real check.
 */

namespace ConsiliumTest;

use ApiQueryBase;
use Wikimedia\ParamValidator\ParamValidator;

class ApiQueryTokenEcho extends ApiQueryBase {
	public function __construct( $query, $moduleName ) {
		parent::__construct( $query, $moduleName, 'cte' );
	}

	public function execute() {
		$params = $this->extractRequestParams();
		if ( !$this->validateToken( $params['token'], $params ) ) {
			$this->dieWithError( 'apierror-badtoken' );
		}
		$this->getResult()->addValue( [ 'query', $this->getModuleName() ], 'text', $params['text'] );
		$this->getResult()->addValue( [ 'query', $this->getModuleName() ], 'user', $this->getUser()->getName() );
	}

	public function mustBePosted() {
		return true;
	}

	public function isWriteMode() {
		return true;
	}

	public function needsToken() {
		return 'csrf';
	}

	public function getAllowedParams() {
		return [
			'text' => [ ParamValidator::PARAM_TYPE => 'string', ParamValidator::PARAM_DEFAULT => '' ],
		];
	}
}
